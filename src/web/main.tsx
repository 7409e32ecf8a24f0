import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { api, loadConfig } from './api';
import { AppProvider, useApp } from './app';
import { Link, Loading } from './components';
import { Accounts } from './pages/Accounts';
import { AnnualReport } from './pages/AnnualReport';
import { Changes } from './pages/Changes';
import { Consent } from './pages/Consent';
import { Device } from './pages/Device';
import { Home } from './pages/Home';
import { Import } from './pages/Import';
import { Reports } from './pages/Reports';
import { Settings } from './pages/Settings';
import { SignIn } from './pages/SignIn';
import { Transactions } from './pages/Transactions';
import './styles.css';

const PAGES: Record<string, () => React.JSX.Element> = {
  '/': Home,
  '/transactions': Transactions,
  '/import': Import,
  '/accounts': Accounts,
  '/reports': Reports,
  '/reports/annual': AnnualReport,
  '/settings': Settings,
  '/history': Changes,
  '/authorize': Consent,
  '/device': Device,
};

function Shell() {
  const { me, path, refresh, navigate } = useApp();
  const route = path.split('?')[0]!;
  // Not signed in: sign in first, then stay on the same page (a consent or device request included).
  if (!me) return <SignIn />;
  const Page = PAGES[route] ?? Home;
  const signOut = async () => {
    await api('POST', '/auth/logout');
    await refresh();
    navigate('/');
  };
  return (
    <>
      <header>
        <nav aria-label="Main">
          <Link to="/" className="brand">
            Ledger
          </Link>
          <Link to="/transactions">Transactions</Link>
          <Link to="/import">Import</Link>
          <Link to="/accounts">Accounts</Link>
          <Link to="/reports">Reports</Link>
          <Link to="/history">History</Link>
          <Link to="/settings">Settings</Link>
        </nav>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <Page key={route} />
    </>
  );
}

await loadConfig();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProvider>{(loading) => (loading ? <Loading /> : <Shell />)}</AppProvider>
  </StrictMode>,
);
