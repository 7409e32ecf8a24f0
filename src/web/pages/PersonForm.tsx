import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type DuesPlan, type Person, type PersonRequest } from '../api';
import { useApp } from '../app';
import { ErrorNote, useSubmit } from '../components';
import { readMemberListRow } from '../member-list';
import { personRefusalInWords, problemInWords } from '../people-words';

// D27: a person added or changed (name, email, IBAN, member no., joined, left, mandate id and
// date, dues plan, note). PUT replaces: a field left empty becomes null. What the app can tell
// before sending (an IBAN's check digits, a mandate without its date, left before joined) is said
// at once, in words; the API's refusals it knows are said in words too (D29).

interface Fields {
  name: string;
  email: string;
  iban: string;
  member_no: string;
  joined_on: string;
  left_on: string;
  mandate_id: string;
  mandate_on: string;
  dues_plan_id: string;
  note: string;
}

function fieldsOf(person: Person | null): Fields {
  return {
    name: person?.name ?? '',
    email: person?.email ?? '',
    iban: person?.iban ?? '',
    member_no: person?.member_no ?? '',
    joined_on: person?.joined_on ?? '',
    left_on: person?.left_on ?? '',
    mandate_id: person?.mandate?.id ?? '',
    mandate_on: person?.mandate?.signed_on ?? '',
    dues_plan_id: person?.dues_plan_id ? String(person.dues_plan_id) : '',
    note: person?.note ?? '',
  };
}

/** The request of the form's fields, or the first thing wrong with them in words, thrown. */
function requestOf(fields: Fields): PersonRequest {
  const { person, problems } = readMemberListRow({
    name: fields.name,
    email: fields.email,
    iban: fields.iban,
    member_no: fields.member_no,
    mandate: fields.mandate_id,
    mandate_date: fields.mandate_on,
    joined_on: fields.joined_on,
    left_on: fields.left_on,
    note: fields.note,
  });
  if (problems[0]) throw new Error(problemInWords(problems[0]));
  if (fields.dues_plan_id) person.dues_plan_id = Number(fields.dues_plan_id);
  return person;
}

export function PersonForm({ person, plans, onSaved, onCancel }: { person: Person | null; plans: DuesPlan[]; onSaved(person: Person): void; onCancel(): void }) {
  const { t } = useTranslation();
  const { bookStyle } = useApp();
  const [fields, setFields] = useState(() => fieldsOf(person));
  const set = (name: keyof Fields) => (e: { target: { value: string } }) => setFields({ ...fields, [name]: e.target.value });
  const { busy, error, onSubmit } = useSubmit(async () => {
    const request = requestOf(fields);
    try {
      onSaved(await (person ? api<Person>('PUT', `/people/${person.id}`, request) : api<Person>('POST', '/people', request)));
    } catch (e) {
      throw new Error(personRefusalInWords((e as Error).message));
    }
  });
  const label = person ? t('people.form.editLabel', { name: person.name }) : t('people.form.newLabel', { context: bookStyle });
  return (
    <form aria-label={label} onSubmit={(e) => void onSubmit(e)} className="person-form">
      <label>
        {t('people.form.name')}
        <input required maxLength={100} value={fields.name} onChange={set('name')} autoComplete="off" />
      </label>
      <div className="row">
        <label>
          {t('people.form.email')}
          <input type="email" value={fields.email} onChange={set('email')} autoComplete="off" />
        </label>
        <label>
          {t('people.form.memberNo')}
          <input maxLength={35} value={fields.member_no} onChange={set('member_no')} autoComplete="off" />
        </label>
      </div>
      <label>
        {t('people.form.iban')}
        <input value={fields.iban} onChange={set('iban')} autoComplete="off" spellCheck={false} />
      </label>
      <div className="row">
        <label>
          {t('people.form.joined')}
          <input type="date" value={fields.joined_on} onChange={set('joined_on')} />
        </label>
        <label>
          {t('people.form.left')}
          <input type="date" value={fields.left_on} onChange={set('left_on')} />
        </label>
      </div>
      <fieldset>
        <legend>{t('people.form.mandate')}</legend>
        <p className="muted small">{t('people.form.mandateHint')}</p>
        <div className="row">
          <label>
            {t('people.form.mandateId')}
            <input maxLength={35} value={fields.mandate_id} onChange={set('mandate_id')} autoComplete="off" spellCheck={false} />
          </label>
          <label>
            {t('people.form.mandateDate')}
            <input type="date" value={fields.mandate_on} onChange={set('mandate_on')} />
          </label>
        </div>
      </fieldset>
      <label>
        {t('people.form.plan')}
        <select value={fields.dues_plan_id} onChange={set('dues_plan_id')}>
          <option value="">{t('people.form.noPlan')}</option>
          {plans.map((plan) => (
            <option key={plan.id} value={plan.id}>
              {plan.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('people.form.note')}
        <textarea rows={2} value={fields.note} onChange={set('note')} />
      </label>
      <ErrorNote error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          {person ? t('people.form.save') : t('people.form.add', { context: bookStyle })}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('people.form.cancel')}
        </button>
      </div>
    </form>
  );
}
