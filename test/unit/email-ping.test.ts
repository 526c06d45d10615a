// The pure rules of e-mail pings (daemon/domain/email-ping.ts): reading a
// recipient address and classifying a message for a check.
import { describe, expect, it } from 'vitest';
import { classifyEmailPing, emailUserAgent, parsePingAddress, type EmailFilterSettings } from '../../daemon/domain/email-ping.js';

const UUID = '0b7b4a8e-3f43-4d8c-9a55-6a3c1e1f2d10';

describe('parsePingAddress', () => {
  it('reads both forms at the ping domain', () => {
    expect(parsePingAddress(`${UUID}@pings.example.org`, 'pings.example.org')).toEqual({ by: 'uuid', uuid: UUID });
    expect(parsePingAddress(`${UUID.toUpperCase()}@PINGS.example.org`, 'pings.example.org')).toEqual({ by: 'uuid', uuid: UUID });
    expect(parsePingAddress('Key_-1+db-backup@pings.example.org', 'pings.example.org')).toEqual({ by: 'slug', pingKey: 'Key_-1', slug: 'db-backup' });
  });

  it('another domain, or no domain, is refused as such', () => {
    for (const a of [`${UUID}@example.org`, `${UUID}@sub.pings.example.org`, UUID, `${UUID}@`]) {
      expect(parsePingAddress(a, 'pings.example.org'), a).toEqual({ refusal: 'other-domain' });
    }
  });

  it('a mailbox of neither form is an invalid mailbox', () => {
    for (const m of ['postmaster', 'key+', '+slug', 'key+Slug', 'key+a.b', 'k.y+slug', 'key+a+b', `${UUID}x`]) {
      expect(parsePingAddress(`${m}@d.test`, 'd.test'), m).toEqual({ refusal: 'invalid-mailbox' });
    }
  });
});

describe('classifyEmailPing', () => {
  const base: EmailFilterSettings = {
    status: 'up',
    manualResume: false,
    filterSubject: false,
    filterBody: false,
    filterDefaultFail: false,
    startKw: 'START',
    successKw: 'OK, DONE',
    failureKw: 'FAIL',
  };
  let bodyReads = 0;
  const content = (subject: string, body: string) => ({
    subject,
    bodyText: () => {
      bodyReads++;
      return body;
    },
  });

  it('without subject or body filtering: success, and the body is never rendered', () => {
    bodyReads = 0;
    expect(classifyEmailPing(content('FAIL', 'FAIL'), { ...base, filterDefaultFail: true })).toBe('success');
    expect(classifyEmailPing(content('DONE', 'FAIL'), { ...base, filterSubject: true })).toBe('success');
    expect(bodyReads).toBe(0);
  });

  it('failure, then success, then start; then default fail or ign', () => {
    const both = { ...base, filterSubject: true, filterBody: true };
    expect(classifyEmailPing(content('DONE', 'FAIL'), both)).toBe('fail');
    expect(classifyEmailPing(content('START', 'DONE'), both)).toBe('success');
    expect(classifyEmailPing(content('START', ''), both)).toBe('start');
    expect(classifyEmailPing(content('x', 'y'), both)).toBe('ign');
    expect(classifyEmailPing(content('x', 'y'), { ...both, filterDefaultFail: true })).toBe('fail');
    expect(classifyEmailPing(content('FAIL', 'DONE'), { ...base, filterBody: true })).toBe('success');
  });

  it('a paused check with manual resume ignores it', () => {
    expect(classifyEmailPing(content('', ''), { ...base, status: 'paused', manualResume: true })).toBe('ign');
    expect(classifyEmailPing(content('', ''), { ...base, status: 'paused' })).toBe('success');
  });

  it('the user agent names the envelope sender, cut to 200 characters', () => {
    expect(emailUserAgent('root@host')).toBe('Email from root@host');
    expect(emailUserAgent('')).toBe('Email from ');
    expect(emailUserAgent(`${'a'.repeat(300)}@h`)).toHaveLength(200);
  });
});
