/** The add-ons area's strings (ICU message format); keys start with the area's name. Merged into i18n/messages.en.ts. */
export const messages = {} as const;
