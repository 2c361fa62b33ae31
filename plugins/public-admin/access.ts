/** Admin-only (K14 style): the public API decides what strangers may read and write. */
export const PUBLIC_API_READ = 'public-api.read';
export const PUBLIC_API_WRITE = 'public-api.write';
/** Admin-only: a template edit changes what every user and guest receives. */
export const EMAIL_TEMPLATES_READ = 'email-templates.read';
export const EMAIL_TEMPLATES_WRITE = 'email-templates.write';

export const tags = ['Public API'];
