// The name of the desktop token file, shared by the server and `cpa` (which must not load the
// database layer just to find the token: `cpa --help` loads no database driver).
export const TOKEN_FILE = 'agent-token';
