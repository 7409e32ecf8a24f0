import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';
import { useApp } from '../app';
import { ErrorNote, LanguageChoice, PageHeading, useSubmit } from '../components';
import { t as translate } from '../i18n';
import { enrolPasskey, signInWithPasskey } from '../passkeys';

type Step = 'password' | 'passkey' | 'enrol';

function PasswordForm({ onDone }: { onDone(step: Step): void }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSubmit(async () => {
    const result = await api<{ has_passkeys: boolean }>('POST', '/auth/login', { email, password });
    setPassword('');
    onDone(result.has_passkeys ? 'passkey' : 'enrol');
  });
  return (
    <form onSubmit={submit.onSubmit}>
      <label>
        {t('signIn.email')}
        <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        {t('signIn.password')}
        <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <ErrorNote error={submit.error} />
      <button type="submit" disabled={submit.busy}>
        {submit.busy ? t('signIn.checking') : t('signIn.continue')}
      </button>
    </form>
  );
}

/** The second step. The password form (and the button that had the focus) is gone: the focus moves to this step's button. */
function PasskeyStep({ enrol }: { enrol: boolean }) {
  const { t } = useTranslation();
  const { refresh } = useApp();
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  const submit = useSubmit(async () => {
    // The passkey's name as Settings lists it, in the language of the moment it was made.
    await (enrol ? enrolPasskey(translate('signIn.firstPasskeyName')) : signInWithPasskey());
    await refresh();
  });
  return (
    <div className="stack">
      <p id="passkey-step">{enrol ? t('signIn.enrolHint') : t('signIn.passkeyHint')}</p>
      <ErrorNote error={submit.error} />
      <button ref={button} type="button" aria-describedby="passkey-step" onClick={() => void submit.onSubmit()} disabled={submit.busy}>
        {enrol ? t('signIn.enrol') : t('signIn.usePasskey')}
      </button>
    </div>
  );
}

/** Sign-in (D9): the password, then the passkey — enrolling the first one when there is none. The language can be chosen here (D29). */
export function SignIn() {
  const { t } = useTranslation();
  const { notice } = useApp();
  const [step, setStep] = useState<Step>('password');
  return (
    <main className="narrow">
      <PageHeading>{t('signIn.title')}</PageHeading>
      {notice === 'sessionEnded' && step === 'password' && (
        <p className="warning" role="status">
          {t('signIn.sessionEnded')}
        </p>
      )}
      {step === 'password' ? <PasswordForm onDone={setStep} /> : <PasskeyStep enrol={step === 'enrol'} />}
      <LanguageChoice />
    </main>
  );
}
