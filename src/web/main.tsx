import { StrictMode, useEffect, useRef } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { api, loadConfig } from './api';
import { AppProvider, useApp } from './app';
import { Link, Loading } from './components';
import { startI18n } from './i18n';
import { Accounts } from './pages/Accounts';
import { AnnualReport } from './pages/AnnualReport';
import { Budgets } from './pages/Budgets';
import { Changes } from './pages/Changes';
import { Consent } from './pages/Consent';
import { Device } from './pages/Device';
import { DirectDebits } from './pages/DirectDebits';
import { DuesPlans } from './pages/DuesPlans';
import { Home } from './pages/Home';
import { Import } from './pages/Import';
import { People } from './pages/People';
import { PersonStatement } from './pages/PersonStatement';
import { PlanAndReality } from './pages/PlanAndReality';
import { Reconcile } from './pages/Reconcile';
import { Reports } from './pages/Reports';
import { Schedules } from './pages/Schedules';
import { Settings } from './pages/Settings';
import { SignIn } from './pages/SignIn';
import { Transactions } from './pages/Transactions';
import './styles.css';

const PAGES: Record<string, () => React.JSX.Element> = {
  '/': Home,
  '/transactions': Transactions,
  '/import': Import,
  '/accounts': Accounts,
  '/reconcile': Reconcile,
  '/reports': Reports,
  '/reports/annual': AnnualReport,
  '/schedules': Schedules,
  '/budgets': Budgets,
  '/budgets/report': PlanAndReality,
  '/people': People,
  '/people/statement': PersonStatement,
  '/dues': DuesPlans,
  '/direct-debits': DirectDebits,
  '/settings': Settings,
  '/history': Changes,
  '/authorize': Consent,
  '/device': Device,
};

/**
 * The header: the links (on a phone one row that scrolls sideways, the current page's link kept
 * in view), then who is signed in and Sign out; on a phone two rows (issue 6/7 findings 8, 11).
 */
function Header({ email, route }: { email: string; route: string }) {
  const { t } = useTranslation();
  const { refresh, navigate, bookStyle } = useApp();
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    const link = nav.current?.querySelector('[aria-current="page"]');
    if (!nav.current || !link) return;
    const [box, frame] = [link.getBoundingClientRect(), nav.current.getBoundingClientRect()];
    if (box.left < frame.left || box.right > frame.right) nav.current.scrollLeft += box.left - frame.left - (frame.width - box.width) / 2;
  }, [route]);
  const signOut = async () => {
    await api('POST', '/auth/logout');
    await refresh();
    navigate('/');
  };
  // Issue 37 item 9: the first Tab stop skips the ten links of the header to the page's own heading.
  const skip = (event: { preventDefault(): void }) => {
    const heading = document.querySelector<HTMLElement>('main h1');
    if (!heading) return;
    event.preventDefault();
    heading.focus();
  };
  return (
    <header>
      <a href="#main" className="skip-link" onClick={skip}>
        {t('nav.skip')}
      </a>
      <nav aria-label={t('nav.main')} ref={nav}>
        <Link to="/" className="brand">
          {t('nav.home')}
        </Link>
        <Link to="/transactions">{t('nav.transactions')}</Link>
        <Link to="/import">{t('nav.import')}</Link>
        <Link to="/accounts">{t('nav.accounts')}</Link>
        <Link to="/reports">{t('nav.reports')}</Link>
        <Link to="/schedules">{t('nav.schedules')}</Link>
        <Link to="/budgets">{t('nav.budgets', { context: bookStyle })}</Link>
        <Link to="/people">{t('nav.people', { context: bookStyle })}</Link>
        <Link to="/history">{t('nav.history')}</Link>
        <Link to="/settings">{t('nav.settings')}</Link>
      </nav>
      <div className="session">
        <span className="person" title={email}>
          {t('nav.signedInAs', { email })}
        </span>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          {t('nav.signOut')}
        </button>
      </div>
    </header>
  );
}

function Shell() {
  const { me, path } = useApp();
  const route = path.split('?')[0]!;
  // Not signed in: sign in first, then stay on the same page (a consent or device request included).
  if (!me) return <SignIn />;
  const Page = PAGES[route] ?? Home;
  return (
    <>
      <Header email={me.email} route={route} />
      <Page key={route} />
    </>
  );
}

await Promise.all([loadConfig(), startI18n()]);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProvider>{(loading) => (loading ? <Loading /> : <Shell />)}</AppProvider>
  </StrictMode>,
);
