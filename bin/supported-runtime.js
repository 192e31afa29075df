// The Node versions Airdate runs on, as package.json's "engines" states them: the 22 line from
// 22.14, and 24 onwards. Node 20 is past its end of life (2026-04-30), and the SQLite driver
// (better-sqlite3 13, Node-API) crashes when it is loaded there, so the command line and the build
// (run by `npm install` and `npm start`) refuse an older runtime with this message before anything
// loads the driver. Plain JavaScript: it runs before any TypeScript loader.

export const supportedRuntime = '^22.14.0 || >=24.0.0';

/** Whether `version` (`process.version`, e.g. `v22.23.3`) is one Airdate supports. */
export function isSupportedNode(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return (major === 22 && minor >= 14) || major >= 24;
}

/** Exits with a message naming the supported versions unless this runtime is one of them. */
export function requireSupportedNode(what) {
  if (isSupportedNode(process.version)) return;
  process.stderr.write(`${what}: Node ${process.version} is not supported; use Node 22 (22.14 or later) or Node 24 (package.json engines: ${supportedRuntime})\n`);
  process.exit(1);
}
