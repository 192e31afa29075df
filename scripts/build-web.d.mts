/** Builds web/ into `outDir` (dist/web by default), emptied first. */
export declare function buildWebApp(outDir?: string): Promise<void>;
