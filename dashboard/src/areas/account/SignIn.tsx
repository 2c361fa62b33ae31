import { useState } from 'react';
import { Link, useSearch } from 'wouter';
import { ApiError } from '../../api/errors';
import type { User } from '../../api/types';
import { t } from '../../i18n/t';
import { navigate, safeNext } from '../../navigation';
import { useSignedIn, useSignIn, useVerifySignIn } from './api';
import { AuthCard, Field, FormError, useSubmit } from '../../ui';

interface Challenge {
  token: string;
  recovery: boolean;
}

/** E-mail and password, then the second factor when the server asks for it (202 with a challenge). */
export function SignIn() {
  const search = new URLSearchParams(useSearch());
  const next = safeNext(search.get('next'));
  const signedIn = useSignedIn();
  const signIn = useSignIn();
  const verifySignIn = useVerifySignIn();
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [expired, setExpired] = useState<ApiError | null>(null);

  const done = (user: User) => {
    signedIn(user);
    navigate(next, { replace: true });
  };

  const credentials = useSubmit(async ({ email = '', password = '' }) => {
    setExpired(null);
    const data = await signIn.mutateAsync({ email, password });
    if ('challengeToken' in data) setChallenge({ token: data.challengeToken, recovery: false });
    else done(data.user);
  });

  const verify = useSubmit(async ({ code = '' }) => {
    if (!challenge) return;
    try {
      const data = await verifySignIn.mutateAsync({ challengeToken: challenge.token, code: code.trim() });
      done(data.user);
    } catch (err) {
      // A used or stale challenge cannot be retried: back to the password, with the server's reason.
      if (err instanceof ApiError && err.code === 'AUTH_CHALLENGE_EXPIRED') {
        setChallenge(null);
        setExpired(err);
        return;
      }
      throw err;
    }
  });

  if (challenge) {
    return (
      <AuthCard title="twoFactor.title">
        <p>{t(challenge.recovery ? 'twoFactor.introRecovery' : 'twoFactor.intro')}</p>
        <form key={String(challenge.recovery)} onSubmit={verify.onSubmit} noValidate>
          <FormError error={verify.error} />
          <Field
            label={challenge.recovery ? 'field.recoveryCode' : 'field.code'}
            name="code"
            type="text"
            autoComplete="one-time-code"
            inputMode={challenge.recovery ? 'text' : 'numeric'}
            required
            focusOnMount
            error={verify.fields.code}
          />
          <button type="submit" disabled={verify.pending}>
            {verify.pending ? t('twoFactor.submitting') : t('twoFactor.submit')}
          </button>
        </form>
        <p className="actions">
          <button type="button" className="link" onClick={() => setChallenge({ ...challenge, recovery: !challenge.recovery })}>
            {t(challenge.recovery ? 'twoFactor.useCode' : 'twoFactor.useRecovery')}
          </button>
          <button type="button" className="link" onClick={() => setChallenge(null)}>
            {t('twoFactor.startOver')}
          </button>
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="signIn.title" message>
      {search.get('ended') === '1' && (
        <p className="notice" role="status">
          {t('signIn.sessionEnded')}
        </p>
      )}
      {search.get('reset') === '1' && (
        <p className="notice" role="status">
          {t('signIn.passwordChanged')}
        </p>
      )}
      {search.get('invited') === '1' && (
        <p className="notice" role="status">
          {t('signIn.invitationAccepted')}
        </p>
      )}
      <form onSubmit={credentials.onSubmit} noValidate>
        <FormError error={credentials.error ?? expired} />
        <Field
          label="field.email"
          name="email"
          type="email"
          autoComplete="username"
          required
          defaultValue={search.get('email') ?? undefined}
          error={credentials.fields.email}
        />
        <Field label="field.password" name="password" type="password" autoComplete="current-password" required error={credentials.fields.password} />
        <button type="submit" disabled={credentials.pending}>
          {credentials.pending ? t('signIn.submitting') : t('signIn.submit')}
        </button>
      </form>
      <p className="actions">
        <Link href="/forgot-password">{t('signIn.forgot')}</Link>
      </p>
    </AuthCard>
  );
}
