/** Codes this plugin adds to the D4 registry (listed in the manifest, so they exist at start). */
export const PUBLIC_ADMIN_ERRORS = {
  PUBLIC_API_NOT_CONFIGURED: {
    status: 409,
    message: 'The public API cannot be switched on: SVC_PUBLIC_API_ORIGINS is not set, so its routes are not served.',
  },
  PUBLIC_KEY_NOT_REVEALABLE: {
    status: 409,
    message: 'Server keys are shown once and cannot be revealed; rotate the key for a new secret.',
  },
  PUBLIC_KEY_APP_OWNED: {
    status: 409,
    message: "This key belongs to an installed app: it has exactly the app's endpoints, stops while the app is disabled and goes with the app.",
  },
  PUBLIC_ENDPOINT_APP_OWNED: {
    status: 409,
    message: "This endpoint belongs to an installed app: it changes with the app's upgrades and settings, and goes with the app.",
  },
  EMAIL_NOT_CONFIGURED: { status: 409, message: 'E-mail is not set up; save the SMTP settings (PUT /settings/email) first.' },
  EMAIL_SEND_FAILED: { status: 502, message: 'The mail server did not accept the message; check the SMTP settings.' },
} as const;
