/** The Add-ons namespace's error codes (DESIGN D22–D26, D29). */
export const ADDON_ERRORS = {
  ADDON_PACKAGE_INVALID: { status: 400, message: 'The add-on package is not valid.' },
  ADDON_INTEGRITY: { status: 400, message: 'The downloaded package does not match the size or sha256 its catalog index gives.' },
  ADDON_SETTINGS_INVALID: { status: 400, message: 'The settings do not match what the add-on declares.' },
  ADDON_REFUSED: { status: 400, message: 'The add-on refused the write.' },
  ADDON_ACTION_STAFF_ONLY: {
    status: 403,
    message: 'Only a signed-in person with add-ons.use may call this action (the add-on lists it in staffActions), not the app key.',
  },
  ADDON_HOST_DENIED: { status: 403, message: 'The add-on may not do this: it reaches only its own tables and the capabilities it declared.' },
  ADDON_KV_FULL: { status: 413, message: "The add-on's key-value store is full (1 MiB)." },
  ADDON_NOT_FOUND: { status: 404, message: 'No such add-on.' },
  ADDON_NOT_STAGED: { status: 404, message: 'That add-on version is not staged: download or upload it first.' },
  ADDON_CONFLICT: { status: 409, message: 'A table or endpoint the add-on declares already exists.' },
  ADDON_PLAN_CHANGED: { status: 409, message: 'The plan changed since it was shown: review the new plan and confirm its hash.' },
  ADDON_ENGINE_MISMATCH: { status: 409, message: 'The add-on does not support this instance version.' },
  ADDON_DOWNGRADE: { status: 409, message: 'An add-on cannot be downgraded.' },
  ADDON_VERSION_INSTALLED: {
    status: 409,
    message: 'That version is installed and this package has other bytes: a changed package needs a new version.',
  },
  ADDON_INSTALLED: { status: 409, message: 'The add-on is already installed; upgrade it instead.' },
  ADDON_DESTRUCTIVE: { status: 409, message: 'The upgrade drops or retypes a column: confirm with allowDestructive.' },
  ADDON_DISABLED: { status: 409, message: 'The add-on is disabled.' },
  ADDON_TABLES_NOT_EMPTY: {
    status: 409,
    message: "The app's tables hold rows: it can move to another connection only while they are empty.",
  },
  ADDON_INSTANCE_NOT_FOUND: { status: 404, message: 'The app has no instance of that id.' },
  ADDON_INSTANCE_NOT_EMPTY: {
    status: 409,
    message: "An instance's rows are still in the app's tables: an instance is removed only while it holds no rows.",
  },
  ADDON_CONNECTION_REQUIRED: { status: 409, message: 'The add-on declares tables: choose the connection they go on.' },
  ADDON_SOURCE_UNREACHABLE: { status: 502, message: 'A catalog source could not be fetched.' },
  ADDON_NOT_CONNECTABLE: {
    status: 409,
    message: 'The add-on declares no connect of this kind, or its OAuth client settings are not set.',
  },
  ADDON_OAUTH_STATE_INVALID: {
    status: 400,
    message: 'The OAuth state is unknown, or was issued for another add-on or another session: start the connection again.',
  },
  ADDON_OAUTH_STATE_USED: { status: 409, message: 'The OAuth state has already been used: start the connection again.' },
  ADDON_OAUTH_STATE_EXPIRED: { status: 409, message: 'The OAuth state has expired (10 minutes): start the connection again.' },
  ADDON_OAUTH_PROVIDER_ERROR: { status: 502, message: 'The OAuth provider refused the exchange or answered something that is not a token.' },
} as const;
