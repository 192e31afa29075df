/**
 * The GraphQL operation names `airdate_graphql_operations_total` counts one by one: the web app's
 * own operations (web/src) and the REST facade's (each feature's `*-route.ts`), which clients copying them to
 * /graphql send too. Any other name, whoever sends it, counts as `(other)`: the names a client
 * makes up can never add a series, however many it sends (docs/operations.md "Metrics"). A test compares this
 * list with the operations in web/src and the route files, so an operation added there fails it until it
 * is added here.
 */
export const knownOperationNames: ReadonlySet<string> = new Set([
  // The web app.
  'AccountSettings',
  'Accounts',
  'AuthInfo',
  'CalendarEvents',
  'CalendarZone',
  'ChangePassword',
  'CompleteSetup',
  'ConnectMediaServer',
  'Connections',
  'CreateAccount',
  'CreateSetupLink',
  'DeliveryLog',
  'DeveloperSettings',
  'ImportAccountZone',
  'ImportLibrary',
  'LibraryChanged',
  'Redeliver',
  'RevokeMediaServer',
  'RegenerateToken',
  'RemoveAccount',
  'ResetPassword',
  'SendTestNotification',
  'Sessions',
  'SetMediaServerOptions',
  'SetRole',
  'SetupLinkInfo',
  'SignIn',
  'SignOut',
  'SignOutEverywhere',
  'SignOutSession',
  'SignUp',
  'Statistics',
  'UpdateSummaryProfile',
  'UpdateTimezone',
  'UpdateWebhook',
  'Viewer',
  // The REST facade.
  'CalendarFeed',
  'MachineAiring',
  'MachineExport',
  'MachineFollow',
  'MachineImport',
  'MachineReleases',
  'MachineSummary',
  'MachineSync',
  'MachineWatched',
  'MachineWidget',
]);
