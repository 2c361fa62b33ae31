import { join } from 'node:path';

export const importsDir = (dataDir: string) => join(dataDir, 'imports');
export const uploadsDir = (dataDir: string) => join(importsDir(dataDir), 'uploads');
export const uploadFile = (dataDir: string, id: string) => join(uploadsDir(dataDir), id);
export const reportFile = (dataDir: string, id: string) => join(importsDir(dataDir), `${id}.errors.csv`);
