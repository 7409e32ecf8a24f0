import postgres from 'postgres';

/** Drops and creates the benchmark's database (never the one the service uses: the URL is the bench's own). */
export async function recreateDatabase(url: URL): Promise<void> {
  const name = url.pathname.slice(1);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = postgres(maintenance.href, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
    await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}
