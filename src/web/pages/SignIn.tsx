import { useState } from 'react';
import { api } from '../api';
import { useApp } from '../app';
import { ErrorNote, useSubmit } from '../components';
import { enrolPasskey, signInWithPasskey } from '../passkeys';

/** Sign-in (D9): the password, then the passkey — enrolling the first one when there is none. */
export function SignIn() {
  const { refresh } = useApp();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [step, setStep] = useState<'password' | 'passkey' | 'enrol'>('password');

  const passwordStep = useSubmit(async () => {
    const result = await api<{ has_passkeys: boolean }>('POST', '/auth/login', { email, password });
    setPassword('');
    setStep(result.has_passkeys ? 'passkey' : 'enrol');
  });
  const passkeyStep = useSubmit(async () => {
    await (step === 'enrol' ? enrolPasskey('My passkey') : signInWithPasskey());
    await refresh();
  });

  return (
    <main className="narrow">
      <h1>Sign in to Ledger</h1>
      {step === 'password' ? (
        <form onSubmit={passwordStep.onSubmit}>
          <label>
            Email
            <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          <ErrorNote error={passwordStep.error} />
          <button type="submit" disabled={passwordStep.busy}>
            {passwordStep.busy ? 'Checking…' : 'Continue'}
          </button>
        </form>
      ) : (
        <div className="stack">
          <p>
            {step === 'enrol'
              ? 'Protect your account with a passkey: your device will ask for your fingerprint, face or PIN.'
              : 'Confirm it is you with your passkey.'}
          </p>
          <ErrorNote error={passkeyStep.error} />
          <button type="button" onClick={() => void passkeyStep.onSubmit()} disabled={passkeyStep.busy}>
            {step === 'enrol' ? 'Create a passkey' : 'Use my passkey'}
          </button>
        </div>
      )}
    </main>
  );
}
