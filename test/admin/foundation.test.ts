// Issue 40, the console's foundation: who may use /api/v2/admin (an admin's web session only), the audit log
// (written in the action's transaction, append-only, listed and exported), and the admins of ADMIN_CHAT_IDS.
import { syncConfiguredAdmins } from '../../src/core/admin/admins';
import { adminActors } from '../../src/core/admin/audit-log';
import { UserEntity } from '../../src/db/entities';
import { ApiHarness, expectErrorShape, startApi } from '../api/harness';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function admin() {
  const account = await api.account('vip');
  await api.services.ds.getRepository(UserEntity).update({ id: account.user.id }, { isAdmin: true });
  return { account, token: await api.accessToken(account) };
}

test('the admin routes take an admin web session only: 403 admin_required for an API key and a non-admin', async () => {
  const { account, token } = await admin();
  const me = await api.request('GET', '/api/v2/user/me', { token });
  expect(me.body.is_admin).toBe(true);
  expect((await api.request('GET', '/api/v2/admin/audit', { token })).status).toBe(200);

  const key = await api.apiKey(account);
  expectErrorShape(await api.request('GET', '/api/v2/admin/audit', { token: key }), 403, 'admin_required');

  const other = await api.account('vip');
  const otherToken = await api.accessToken(other);
  expect((await api.request('GET', '/api/v2/user/me', { token: otherToken })).body.is_admin).toBe(false);
  expectErrorShape(await api.request('GET', '/api/v2/admin/audit', { token: otherToken }), 403, 'admin_required');
  expectErrorShape(await api.request('GET', '/api/v2/admin/audit'), 401, 'not_authenticated');
  expect((await api.request('GET', '/api/v2/admin/no-such-thing', { token })).status).toBe(404);

  // A blocked admin is refused as everywhere.
  await api.services.ds.getRepository(UserEntity).update({ id: account.user.id }, { isBlocked: true });
  expectErrorShape(await api.request('GET', '/api/v2/admin/audit', { token }), 403, 'account_blocked');
});

test('an audit row commits with its transaction (or not at all), is listed with filters and paged, and exported as CSV', async () => {
  const { account, token } = await admin();
  const { ds, adminAudit } = api.services;
  const target = `t-${Date.now()}`;
  await ds.transaction(async (em) => {
    await adminAudit.record(
      {
        actor: adminActors.web(account.user.id),
        action: 'user.grant',
        target: { type: 'user', id: target },
        before: { bonus: 1 },
        after: { bonus: 11 },
      },
      em,
    );
  });
  await expect(
    ds.transaction(async (em) => {
      await adminAudit.record({ actor: adminActors.cli(), action: 'user.plan', target: { type: 'user', id: target } }, em);
      throw new Error('the action failed');
    }),
  ).rejects.toThrow('the action failed');
  await adminAudit.record({
    actor: adminActors.cli(),
    action: 'user.block',
    target: { type: 'user', id: target },
    after: { note: '=cmd, "quoted"' },
  });

  const all = await api.request('GET', `/api/v2/admin/audit?target_type=user&target_id=${target}`, { token });
  expect(all.status).toBe(200);
  expect(all.body.items.map((e: { action: string }) => e.action)).toEqual(['user.block', 'user.grant']);
  expect(all.body.items[1]).toMatchObject({
    actor: { user_id: account.user.id, label: `web:${account.user.id}`, door: 'web' },
    target: { type: 'user', id: target },
    before: { bonus: 1 },
    after: { bonus: 11 },
  });
  expect(all.body.next_cursor).toBeNull();

  const first = await api.request('GET', `/api/v2/admin/audit?target_id=${target}&limit=1`, { token });
  expect(first.body.items).toHaveLength(1);
  const second = await api.request('GET', `/api/v2/admin/audit?target_id=${target}&limit=1&cursor=${first.body.next_cursor}`, { token });
  expect(second.body.items[0].action).toBe('user.grant');
  const byActor = await api.request('GET', `/api/v2/admin/audit?target_id=${target}&actor=cli`, { token });
  expect(byActor.body.items.map((e: { action: string }) => e.action)).toEqual(['user.block']);
  const byArea = await api.request('GET', `/api/v2/admin/audit?target_id=${target}&action=user.*&actor=${account.user.id}`, { token });
  expect(byArea.body.items.map((e: { action: string }) => e.action)).toEqual(['user.grant']);
  expectErrorShape(await api.request('GET', '/api/v2/admin/audit?from=yesterday', { token }), 400, 'validation_error');

  const csv = await api.request('GET', `/api/v2/admin/audit.csv?target_id=${target}`, { token });
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  const lines = csv.text.trimEnd().split('\r\n');
  expect(lines[0]).toBe('id,created_at,actor_user_id,actor_label,door,action,target_type,target_id,before,after');
  expect(lines).toHaveLength(3);
  expect(lines[1]).toContain(`,cli,cli,user.block,user,${target},,"{""note"":""=cmd, \\""quoted\\""""}"`);
});

test('the audit log is append-only: UPDATE and DELETE are refused; deleting the actor keeps its rows', async () => {
  const { ds, adminAudit } = api.services;
  const actor = await api.account('free');
  const target = `ao-${Date.now()}`;
  await adminAudit.record({ actor: adminActors.web(actor.user.id), action: 'user.grant', target: { type: 'user', id: target } });
  await expect(ds.query(`UPDATE admin_audit_log SET action = 'x' WHERE target_id = $1`, [target])).rejects.toThrow(/append-only/);
  await expect(ds.query(`DELETE FROM admin_audit_log WHERE target_id = $1`, [target])).rejects.toThrow(/append-only/);
  await ds.query(`DELETE FROM users WHERE id = $1`, [actor.user.id]);
  const rows = await ds.query(`SELECT actor_user_id, actor_label FROM admin_audit_log WHERE target_id = $1`, [target]);
  expect(rows).toEqual([{ actor_user_id: null, actor_label: `web:${actor.user.id}` }]);
});

test('the accounts of ADMIN_CHAT_IDS are made admins at start (synced, never revoked by the sync)', async () => {
  const { ds } = api.services;
  const linked = await api.account('free');
  const telegramId = 700_000_000 + Math.floor(Math.random() * 1_000_000);
  await ds.getRepository(UserEntity).update({ id: linked.user.id }, { telegramId: String(telegramId) });
  expect(await syncConfiguredAdmins(ds, [telegramId, -100123])).toEqual([linked.user.id]);
  expect((await ds.getRepository(UserEntity).findOneByOrFail({ id: linked.user.id })).isAdmin).toBe(true);
  expect(await syncConfiguredAdmins(ds, [telegramId])).toEqual([]);
});
