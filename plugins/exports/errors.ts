export const EXPORT_ERRORS = {
  EXPORT_NOT_READY: { status: 409, message: 'The export has no file yet (or failed); its state says why.' },
  EXPORT_EXPIRED: { status: 410, message: 'The export file has expired and was removed; export again.' },
};
