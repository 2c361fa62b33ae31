import { z } from 'zod';
import { dataOf, effectivePermissionsShape, newPasswordField, passwordField, userSchema } from '../../kernel/api.js';

/** Sign-in takes any string in bounds: refusing a malformed e-mail would answer differently from a wrong one. */
export const loginEmailField = z.string().min(3).max(320);
export const codeField = z.string().min(6).max(20);

export const loginBody = z.strictObject({ email: loginEmailField, password: passwordField });
export const verifyBody = z.strictObject({ challengeToken: z.string().min(1), code: codeField });
export const changePasswordBody = z.strictObject({ currentPassword: passwordField, newPassword: newPasswordField });
export const forgotBody = z.strictObject({ email: loginEmailField });
export const resetBody = z.strictObject({ token: z.string().min(1), newPassword: newPasswordField });
export const activateBody = z.strictObject({ code: codeField });
export const disableBody = z.strictObject({ password: passwordField, code: codeField.optional() });
export const sessionParams = z.object({ id: z.string().min(1).max(64) });

export const signedInResponse = dataOf(z.strictObject({ user: userSchema, twoFactorSetupRequired: z.literal(true).optional() }));
export const challengeResponse = dataOf(z.strictObject({ twoFactorRequired: z.literal(true), challengeToken: z.string() }));
export const sessionStateResponse = dataOf(
  z.strictObject({ user: userSchema, roles: z.array(z.string()), ...effectivePermissionsShape, twoFactorSetupRequired: z.boolean() }),
);

export const sessionEntrySchema = z
  .strictObject({
    id: z.string(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: z.number(),
    lastSeenAt: z.number(),
    expiresAt: z.number(),
    current: z.boolean(),
  })
  .meta({ id: 'Session' });
export type SessionEntry = z.infer<typeof sessionEntrySchema>;
export const sessionListResponse = dataOf(z.strictObject({ sessions: z.array(sessionEntrySchema) }));

export const enrolResponse = dataOf(z.strictObject({ secret: z.string(), otpauthUrl: z.string() }));
export const recoveryCodesResponse = dataOf(z.strictObject({ recoveryCodes: z.array(z.string()) }));
