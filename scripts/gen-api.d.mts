export const OPENAPI_JSON: string;
export const OPENAPI_TYPES: string;
export function generateApiTypes(): Promise<string>;
