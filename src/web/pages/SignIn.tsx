import { useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { useApp } from '../app';
import { ErrorNote, PageHeading, useSubmit } from '../components';
import { enrolPasskey, signInWithPasskey } from '../passkeys';

type Step = 'password' | 'passkey' | 'enrol';

function PasswordForm({ onDone }: { onDone(step: Step): void }) {
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
        Email
        <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Password
        <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <ErrorNote error={submit.error} />
      <button type="submit" disabled={submit.busy}>
        {submit.busy ? 'Checking…' : 'Continue'}
      </button>
    </form>
  );
}

/** The second step. The password form (and the button that had the focus) is gone: the focus moves to this step's button. */
function PasskeyStep({ enrol }: { enrol: boolean }) {
  const { refresh } = useApp();
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  const submit = useSubmit(async () => {
    await (enrol ? enrolPasskey('My passkey') : signInWithPasskey());
    await refresh();
  });
  return (
    <div className="stack">
      <p id="passkey-step">
        {enrol
          ? 'Protect your account with a passkey: your device will ask for your fingerprint, face or PIN.'
          : 'Confirm it is you with your passkey.'}
      </p>
      <ErrorNote error={submit.error} />
      <button ref={button} type="button" aria-describedby="passkey-step" onClick={() => void submit.onSubmit()} disabled={submit.busy}>
        {enrol ? 'Create a passkey' : 'Use my passkey'}
      </button>
    </div>
  );
}

/** Sign-in (D9): the password, then the passkey — enrolling the first one when there is none. */
export function SignIn() {
  const { notice } = useApp();
  const [step, setStep] = useState<Step>('password');
  return (
    <main className="narrow">
      <PageHeading>Sign in to Ledger</PageHeading>
      {notice && step === 'password' && (
        <p className="warning" role="status">
          {notice}
        </p>
      )}
      {step === 'password' ? <PasswordForm onDone={setStep} /> : <PasskeyStep enrol={step === 'enrol'} />}
    </main>
  );
}
