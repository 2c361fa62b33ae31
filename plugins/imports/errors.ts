export const IMPORT_ERRORS = {
  IMPORT_UNREADABLE: { status: 400, message: 'The file could not be read as CSV, JSON or XLSX.' },
  IMPORT_UNPACKED_TOO_LARGE: {
    status: 413,
    message: 'The file unpacks to more than the import limits allow (unpacked size, shared strings, rows or columns); params.what names the limit.',
  },
  IMPORT_UPLOAD_EXPIRED: { status: 410, message: 'The upload has expired and was removed; upload the file again.' },
  IMPORT_NOT_RUNNABLE: { status: 409, message: 'This import has already run (an import runs once; create another to run again).' },
  IMPORT_NO_REPORT: { status: 409, message: 'The import has not produced its error report yet.' },
};
