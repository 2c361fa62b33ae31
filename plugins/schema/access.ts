/**
 * The permissions the schema routes need. Reading a connection's schema is part of reading the
 * connection, and changing what the dashboard shows of it is part of managing it, so these are
 * the connections plugin's permissions rather than a second pair an operator must keep in step.
 */
export const SCHEMA_READ = 'connections.read';
export const SCHEMA_WRITE = 'connections.write';
