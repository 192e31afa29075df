/** The Node versions Airdate supports, as package.json's "engines" range. */
export declare const supportedRuntime: string;
/** Whether `version` (e.g. `v22.23.3`) is one Airdate supports. */
export declare function isSupportedNode(version: string): boolean;
/** Exits with a message naming the supported versions unless this runtime is one of them. */
export declare function requireSupportedNode(what: string): void;
