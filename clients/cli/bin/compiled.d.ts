export declare const projectRoot: string;
/** The compiled entry point's file URL, or null and why it cannot be used. */
export declare function compiledEntry(root?: string): { url: string; why: null } | { url: null; why: string };
