import { useTranslation } from 'react-i18next';
import { PageHeading } from '../components';

// Scaffold: replaced by the page's own work.
export function DirectDebits() {
  const { t } = useTranslation();
  return (
    <main id="main">
      <PageHeading>{t('nav.home')}</PageHeading>
    </main>
  );
}
