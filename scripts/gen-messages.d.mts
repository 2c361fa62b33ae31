export const SOURCE_DIR: string;
export const MESSAGE_IDS: string;
export function readSourceCatalogue(): Record<string, Record<string, string>>;
export function generateMessageIds(): Promise<string>;
