#!/usr/bin/node
// ioredis_test.js HOST PORT AUTH_PORT PASSWORD
//
// Client-interoperability tests with ioredis 5 (installed into
// tests/clients/node_modules by `sh utils/deps test`), run by
// tests/integration/clients.tcl against a scratch server (PORT, no
// password) and a second one started with requirepass PASSWORD (AUTH_PORT).
//
// What ioredis sends on its own is checked through a MONITOR connection:
// AUTH (password option), SELECT (db), INFO (enableReadyCheck, the default),
// CLIENT SETNAME (connectionName) and READONLY (readOnly), in that order.
// Then what applications call: command(), call('COMMAND'), info(), hello,
// CLIENT SETINFO (an unknown subcommand in Redis 7.0), CLUSTER/READONLY/
// READWRITE/ASKING (errors without cluster mode), Redis.Cluster against a
// standalone server, pipelines, MULTI, auto-pipelining, and strings, lists,
// hashes, sets, sorted sets and SCAN. ioredis 5 speaks RESP2 only: HELLO 3
// is shown to be a protocol error to its parser and the RESP3 test skips.
//
// Expected values are those of redis-server 7.0.15. Uses DB 12 (flushed).
// Prints "[ok] NAME", "[err] NAME: MESSAGE" or "[skip] NAME: REASON" per
// test and, as the last line, "N passed, N failed[, N skipped]"; exits 1 if
// anything failed.
'use strict';

const path = require('path');
const assert = require('assert');

let Redis;
try {
    Redis = require(path.join(__dirname, '..', 'clients', 'node_modules', 'ioredis'));
} catch (e) {
    console.log(`[skip] ioredis: cannot load it from tests/clients/node_modules (run sh utils/deps test): ${e.message.split("\n")[0]}`);
    console.log('0 passed, 0 failed, 1 skipped');
    process.exit(0);
}

if (process.argv.length !== 6) {
    process.stderr.write('usage: ioredis_test.js HOST PORT AUTH_PORT PASSWORD\n');
    process.exit(2);
}
const HOST = process.argv[2];
const PORT = Number(process.argv[3]);
const AUTH_PORT = Number(process.argv[4]);
const PASSWORD = process.argv[5];
const DB = 12;
const DISABLED = 'ERR This instance has cluster support disabled';
const SETINFO = "ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.";

// Every client a test opens, so the runner can close what a failed test left.
const opened = [];

// A client that does not reconnect or retry: a failure shows at once.
function client(opts = {}) {
    const r = new Redis(Object.assign({
        host: HOST, port: PORT, db: DB, retryStrategy: () => null,
        maxRetriesPerRequest: 1, connectTimeout: 10000,
    }, opts));
    // Errors are asserted where expected; the event must not go unhandled.
    r.on('error', () => {});
    opened.push(r);
    return r;
}

function ready(r) {
    if (r.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
        r.once('ready', resolve);
        r.once('end', () => reject(new Error('connection ended before ready')));
    });
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

// The first `event` emitted by emitter, its arguments as an array.
function once(emitter, event, ms = 5000) {
    return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no ${event} event within ${ms}ms`)), ms);
        emitter.once(event, (...args) => { clearTimeout(t); resolve(args); });
    });
}

function eq(expected, actual, what) {
    assert.deepStrictEqual(actual, expected, what);
}

// The promise must reject with an error of class `cls` (by name); returns it.
async function rejects(promise, cls = 'ReplyError') {
    let res;
    try {
        res = await promise;
    } catch (e) {
        if (e.constructor.name !== cls) {
            throw new Error(`expected ${cls} but got ${e.constructor.name}: ${e.message}`);
        }
        return e;
    }
    throw new Error(`expected ${cls} but got the reply ${JSON.stringify(res)}`);
}

// A flat [k, v, k, v] reply (HELLO, COMMAND DOCS maps in RESP2) as an object.
function flat(reply) {
    const o = {};
    for (let i = 0; i + 1 < reply.length; i += 2) o[reply[i]] = reply[i + 1];
    return o;
}

// INFO text -> {field: value}.
function parseInfo(text) {
    const o = {};
    for (const line of text.split('\r\n')) {
        const i = line.indexOf(':');
        if (line && line[0] !== '#' && i > 0) o[line.slice(0, i)] = line.slice(i + 1);
    }
    return o;
}

async function cmdstat(r, name, field) {
    const s = parseInfo(await r.info('commandstats'))[`cmdstat_${name}`];
    if (!s) return 0;
    const kv = Object.fromEntries(s.split(',').map((x) => x.split('=')));
    return Number(kv[field] || 0);
}

// Starts MONITOR on port (authenticated on the password server) and returns
// {stop, commandsOf}: commandsOf(r) lists what the client r sent, as
// "db command args..." strings in arrival order.
async function monitor(port) {
    const m = client({port, db: 0, password: port === AUTH_PORT ? PASSWORD : undefined});
    await ready(m);
    const mon = await m.monitor();
    mon.on('error', () => {});
    opened.push(mon);
    const seen = [];
    mon.on('monitor', (time, args, source, db) => seen.push({source, line: `${db} ${args.join(' ')}`}));
    return {
        async commandsOf(r) {
            // A PING from r marks the end of what it sent before.
            await r.ping();
            const me = `${r.stream.localAddress}:${r.stream.localPort}`;
            const deadline = Date.now() + 5000;
            for (;;) {
                const mine = seen.filter((x) => x.source === me).map((x) => x.line);
                if (mine.length && mine[mine.length - 1].endsWith(' ping')) return mine.slice(0, -1);
                if (Date.now() > deadline) return mine;
                await sleep(20);
            }
        },
        stop() { mon.disconnect(); m.disconnect(); },
    };
}

const tests = [];
function test(name, fn) { tests.push({name, fn}); }
class Skip extends Error {}

// ---------------------------------------------------------------------------

test('connect: INFO ready check, SELECT, CLIENT SETNAME, READONLY', async () => {
    const mon = await monitor(PORT);
    try {
        const r = client({db: 3, connectionName: 'io-conn', readOnly: true});
        await ready(r);
        eq(['3 select 3', '3 info', '3 client setname io-conn', '3 readonly'], await mon.commandsOf(r));
        eq('io-conn', await r.client('GETNAME'));
        const info = await r.client('INFO');
        assert.match(info, / name=io-conn /);
        assert.match(info, / db=3 /);
        // readonly's error is swallowed by ioredis; the server counted it.
        assert.ok(await cmdstat(r, 'readonly', 'failed_calls') >= 1, 'READONLY failed_calls');
        eq('OK', await r.set('io:conn', 'v'));
        r.disconnect();
        // enableReadyCheck: false sends nothing before the first command.
        const q = client({enableReadyCheck: false, db: 0});
        await ready(q);
        eq([], await mon.commandsOf(q));
        q.disconnect();
    } finally {
        mon.stop();
    }
});

test('connect with username and password (AUTH), and wrong ones', async () => {
    const mon = await monitor(AUTH_PORT);
    try {
        const r = client({port: AUTH_PORT, username: 'default', password: PASSWORD,
            connectionName: 'io-auth', db: 0});
        await ready(r);
        // MONITOR shows AUTH with its arguments redacted, as Redis does.
        eq(['0 auth (redacted) (redacted)', '0 info', '0 client setname io-auth'], await mon.commandsOf(r));
        eq('io-auth', await r.client('GETNAME'));
        assert.match(await r.client('INFO'), / user=default /);
        r.disconnect();
        const p = client({port: AUTH_PORT, password: PASSWORD, db: 0});
        await ready(p);
        eq(['0 auth (redacted)', '0 info'], await mon.commandsOf(p));
        p.disconnect();
    } finally {
        mon.stop();
    }
    const bad = client({port: AUTH_PORT, password: 'wrong'});
    const [err] = await once(bad, 'error');
    eq('WRONGPASS invalid username-password pair or user is disabled.', err.message);
    // Without a password the ready check's INFO meets NOAUTH.
    const none = client({port: AUTH_PORT});
    const [err2] = await once(none, 'error');
    eq('NOAUTH Authentication required.', err2.message);
    bad.disconnect();
    none.disconnect();
});

test('hello 2, with SETNAME, and with AUTH on the password server', async () => {
    const r = client();
    await ready(r);
    const h = flat(await r.hello('2'));
    eq(['server', 'version', 'proto', 'id', 'mode', 'role', 'modules'], Object.keys(h));
    eq(['redis', '7.0.15', 2, 'standalone', 'master', []],
        [h.server, h.version, h.proto, h.mode, h.role, h.modules]);
    eq(await r.client('ID'), h.id);
    eq(2, flat(await r.hello('2', 'SETNAME', 'io-hello')).proto);
    eq('io-hello', await r.client('GETNAME'));
    eq('NOPROTO unsupported protocol version', (await rejects(r.hello('4'))).message);
    r.disconnect();
    // No password option: the HELLO authenticates (no ready check, whose
    // INFO would meet NOAUTH first).
    const a = client({port: AUTH_PORT, enableReadyCheck: false, db: 0});
    await ready(a);
    eq('NOAUTH Authentication required.', (await rejects(a.get('k'))).message);
    eq('WRONGPASS invalid username-password pair or user is disabled.',
        (await rejects(a.hello('2', 'AUTH', 'default', 'wrong'))).message);
    const ha = flat(await a.hello('2', 'AUTH', 'default', PASSWORD, 'SETNAME', 'io-hello-auth'));
    eq([2, 'master'], [ha.proto, ha.role]);
    eq('io-hello-auth', await a.client('GETNAME'));
    eq(null, await a.get('k'));
    a.disconnect();
});

test('resp3', async () => {
    // ioredis 5 parses RESP2 only: HELLO 3's map reply breaks its parser.
    const r = client();
    await ready(r);
    const e = await rejects(r.hello('3'), 'ParserError');
    assert.match(e.message, /^Protocol error, got "%" as reply type byte/);
    r.disconnect();
    throw new Skip(`ioredis ${require(path.join(__dirname, '..', 'clients', 'node_modules', 'ioredis', 'package.json')).version} has no RESP3 support (HELLO 3 map reply: "${e.message}")`);
});

test('command(), call("COMMAND") and COMMAND subcommands', async () => {
    const r = client();
    await ready(r);
    const table = await r.command();
    const count = await r.command('COUNT');
    eq(count, table.length, 'COMMAND entries vs COMMAND COUNT');
    const names = table.map((e) => e[0]);
    eq(count, new Set(names).size, 'distinct names');
    const list = await r.command('LIST');
    eq(list.filter((n) => !n.includes('|')).sort(), names.slice().sort());
    for (const n of ['get', 'hello', 'command', 'info', 'client', 'cluster', 'readonly', 'asking']) {
        assert.ok(names.includes(n), `${n} in COMMAND`);
    }
    const getSpec = ['flags', ['RO', 'access'], 'begin_search', ['type', 'index', 'spec', ['index', 1]],
        'find_keys', ['type', 'range', 'spec', ['lastkey', 0, 'keystep', 1, 'limit', 0]]];
    const getEntry = ['get', 2, ['readonly', 'fast'], 1, 1, 1, ['@read', '@string', '@fast'], [], [getSpec], []];
    eq(getEntry, table.find((e) => e[0] === 'get'));
    eq(count, (await r.call('COMMAND')).length);
    eq([getEntry, null], await r.command('INFO', 'get', 'nosuchcommand'));
    const cluster = table.find((e) => e[0] === 'cluster');
    eq(27, cluster[9].length, 'CLUSTER subcommands');
    eq(['cluster', -2, [], 0, 0, 0, ['@slow'], [], []], cluster.slice(0, 9));
    eq(['cluster|info', 2, ['stale'], 0, 0, 0, ['@slow'], ['nondeterministic_output'], [], []],
        cluster[9].find((e) => e[0] === 'cluster|info'));
    // cairn has no argument docs: only the fields both servers return.
    const docs = await r.command('DOCS', 'get', 'nosuchcommand');
    eq('get', docs[0]);
    eq(2, docs.length);
    eq(['summary', 'Get the value of a key', 'since', '1.0.0', 'group', 'string'], docs[1].slice(0, 6));
    eq(['a', 'b'], await r.command('GETKEYS', 'MSET', 'a', '1', 'b', '2'));
    eq([['a', ['RW', 'access', 'delete']], ['b', ['RW', 'insert']]],
        await r.command('GETKEYSANDFLAGS', 'LMOVE', 'a', 'b', 'LEFT', 'RIGHT'));
    eq('ERR The command has no key arguments', (await rejects(r.command('GETKEYS', 'ECHO', 'x'))).message);
    eq('ERR Invalid command specified', (await rejects(r.command('GETKEYS', 'NOSUCH', 'x'))).message);
    r.disconnect();
});

test('info(): sections as text', async () => {
    const r = client();
    await ready(r);
    const all = parseInfo(await r.info());
    eq(['7.0.15', String(PORT), 'standalone'], [all.redis_version, all.tcp_port, all.redis_mode]);
    eq('# Cluster\r\ncluster_enabled:0\r\n', await r.info('cluster'));
    eq('0', parseInfo(await r.info('persistence')).loading, 'loading (what the ready check reads)');
    assert.ok(Number(parseInfo(await r.info('clients')).connected_clients) >= 1);
    r.disconnect();
});

test('CLIENT SETINFO is unknown in Redis 7.0; the connection goes on', async () => {
    const r = client({connectionName: 'io-setinfo'});
    await ready(r);
    eq(SETINFO, (await rejects(r.client('SETINFO', 'lib-name', 'ioredis'))).message);
    eq(SETINFO, (await rejects(r.call('CLIENT', 'SETINFO', 'lib-ver', '5.4.1'))).message);
    eq('io-setinfo', await r.client('GETNAME'));
    assert.doesNotMatch(await r.client('INFO'), /lib-name/);
    r.disconnect();
});

test('CLUSTER, READONLY, READWRITE, ASKING without cluster mode', async () => {
    const r = client();
    await ready(r);
    for (const args of [['INFO'], ['SLOTS'], ['SHARDS'], ['NODES'], ['MYID'], ['KEYSLOT', 'k']]) {
        eq(DISABLED, (await rejects(r.cluster(...args))).message, args.join(' '));
    }
    for (const cmd of ['readonly', 'readwrite', 'asking']) {
        eq(DISABLED, (await rejects(r[cmd]())).message, cmd);
    }
    eq("ERR unknown subcommand 'NOSUCH'. Try CLUSTER HELP.", (await rejects(r.cluster('NOSUCH'))).message);
    eq("ERR wrong number of arguments for 'cluster|info' command",
        (await rejects(r.cluster('INFO', 'x'))).message);
    eq('PONG', await r.ping());
    r.disconnect();
});

test('Redis.Cluster on a standalone server: CLUSTER SLOTS fails', async () => {
    const c = new Redis.Cluster([{host: HOST, port: PORT}], {clusterRetryStrategy: () => null});
    opened.push(c);
    const nodeErr = once(c, 'node error');
    const err = once(c, 'error');
    const [e1, key] = await nodeErr;
    eq([DISABLED, `${HOST}:${PORT}`], [e1.message, key]);
    const [e2] = await err;
    eq(['ClusterAllFailedError', 'Failed to refresh slots cache.', DISABLED],
        [e2.constructor.name, e2.message, e2.lastNodeError.message]);
    c.disconnect();
});

test('pipeline of the handshake commands', async () => {
    const r = client();
    await ready(r);
    const res = await r.pipeline()
        .hello('2').command('COUNT').command().command('DOCS', 'get').info('server')
        .client('SETNAME', 'io-pipe').client('SETINFO', 'lib-name', 'ioredis').cluster('INFO')
        .readonly().call('READWRITE').client('GETNAME').set('io:p', 'v').get('io:p').ping()
        .exec();
    eq(14, res.length);
    const errs = res.map(([e]) => (e ? e.message : null));
    eq([null, null, null, null, null, null, SETINFO, DISABLED, DISABLED, DISABLED, null, null, null, null], errs);
    eq(2, flat(res[0][1]).proto);
    eq(res[1][1], res[2][1].length, 'COMMAND COUNT vs COMMAND in one pipeline');
    eq('Get the value of a key', flat(res[3][1][1]).summary);
    eq('7.0.15', parseInfo(res[4][1]).redis_version);
    eq(['OK', 'io-pipe', 'OK', 'v', 'PONG'], [res[5][1], res[10][1], res[11][1], res[12][1], res[13][1]]);
    r.disconnect();
});

test('multi/exec: an error at EXEC in its slot; an unknown subcommand aborts', async () => {
    const r = client();
    await ready(r);
    const res = await r.multi().set('io:tx', '1').incr('io:tx').cluster('INFO').command('COUNT')
        .get('io:tx').exec();
    eq([null, 'OK'], res[0]);
    eq([null, 2], res[1]);
    eq(DISABLED, res[2][0].message);
    eq('number', typeof res[3][1]);
    eq([null, '2'], res[4]);
    const e = await rejects(r.multi().set('io:tx2', '1').client('SETINFO', 'lib-name', 'x').exec());
    eq('EXECABORT Transaction discarded because of previous errors.', e.message);
    eq([SETINFO], e.previousErrors.map((x) => x.message));
    eq(0, await r.exists('io:tx2'));
    r.disconnect();
});

test('strings, lists, hashes, sets, sorted sets, keys and SCAN', async () => {
    const r = client();
    await ready(r);
    eq('OK', await r.set('s', 'hello'));
    eq(10, await r.append('s', 'world'));
    eq('hello', await r.getrange('s', 0, 4));
    eq('OK', await r.mset({a: '1', b: '2'}));
    eq(['1', '2', null], await r.mget('a', 'b', 'nope'));
    eq(11, await r.incrby('a', 10));
    eq('13.5', await r.incrbyfloat('a', 2.5));
    eq('OK', await r.set('ex', 'v', 'EX', 100));
    assert.ok((await r.ttl('ex')) > 90);
    const bin = Buffer.from([0, 255, 13, 10, 128]);
    eq('OK', await r.set('bin', bin));
    eq(bin, await r.getBuffer('bin'));
    eq(3, await r.rpush('l', 'a', 'b', 'c'));
    eq(4, await r.lpush('l', 'z'));
    eq(['z', 'a', 'b', 'c'], await r.lrange('l', 0, -1));
    eq(['z', 'a'], await r.lpop('l', 2));
    eq('c', await r.lmove('l', 'l2', 'RIGHT', 'LEFT'));
    eq(['l2', 'c'], await r.blpop('l2', 1));
    eq(null, await r.blpop('l2', 0.1));
    eq(3, await r.hset('h', {f1: 'v1', f2: 'v2', n: '5'}));
    eq({f1: 'v1', f2: 'v2', n: '5'}, await r.hgetall('h'));
    eq(7, await r.hincrby('h', 'n', 2));
    eq(['v1', null], await r.hmget('h', 'f1', 'nope'));
    eq(1, await r.hdel('h', 'f2'));
    eq(['f1', 'n'], (await r.hkeys('h')).sort());
    eq(3, await r.sadd('set', 'x', 'y', 'z'));
    eq(['x', 'y', 'z'], (await r.smembers('set')).sort());
    eq(1, await r.sismember('set', 'y'));
    eq(2, await r.zadd('z', 1, 'one', 2, 'two'));
    eq(['one', '1', 'two', '2'], await r.zrange('z', 0, -1, 'WITHSCORES'));
    eq(['string', 'list', 'hash', 'set', 'zset', 'none'],
        await Promise.all(['s', 'l', 'h', 'set', 'z', 'nope'].map((k) => r.type(k))));
    const keys = new Set();
    await new Promise((resolve, reject) => {
        const st = r.scanStream({match: '*', count: 3});
        st.on('data', (batch) => batch.forEach((k) => keys.add(k)));
        st.on('end', resolve);
        st.on('error', reject);
    });
    eq(['a', 'b', 'bin', 'ex', 'h', 'l', 's', 'set', 'z'], [...keys].sort());
    eq(9, await r.del(...keys));
    r.disconnect();
});

test('enableAutoPipelining: concurrent commands batched into pipelines', async () => {
    const r = client({enableAutoPipelining: true});
    await ready(r);
    const replies = await Promise.all(Array.from({length: 200}, () => r.incr('io:auto')));
    eq(200, new Set(replies).size);
    eq('200', await r.get('io:auto'));
    eq(200, Math.max(...replies));
    r.disconnect();
});

// ioredis' custom commands: EVALSHA first, EVAL when the server answers
// NOSCRIPT, the script loaded ahead of a pipeline or MULTI, Buffer variants,
// a key count given per call, and a script's own error reply.
test('defineCommand: EVALSHA, NOSCRIPT fallback, pipelines, MULTI, Buffer replies', async () => {
    const r = client();
    await ready(r);
    const cap = "local v = redis.call('INCRBY', KEYS[1], ARGV[1]) " +
        "if v > tonumber(ARGV[2]) then redis.call('SET', KEYS[1], ARGV[2]) return tonumber(ARGV[2]) end return v";
    r.defineCommand('incrCap', {numberOfKeys: 1, lua: cap});
    eq('OK', await r.script('FLUSH'));
    const evals = await cmdstat(r, 'eval', 'calls');
    eq(5, await r.incrCap('io:cap', 5, 12));
    eq(10, await r.incrCap('io:cap', 5, 12));
    eq(12, await r.incrCap('io:cap', 5, 12));
    // the first call fell back to EVAL once; the script is now cached
    eq(evals + 1, await cmdstat(r, 'eval', 'calls'));
    const sha = require('crypto').createHash('sha1').update(cap).digest('hex');
    eq([1], await r.script('EXISTS', sha));
    eq('12', await r.get('io:cap'));
    eq('OK', await r.script('FLUSH'));
    const res = await r.pipeline().incrCap('io:p', 1, 2).incrCap('io:p', 1, 2).incrCap('io:p', 1, 2).exec();
    eq([[null, 1], [null, 2], [null, 2]], res);
    // (ioredis loads a script ahead of a pipeline, but in MULTI it relies on
    // the script it already knows the server has)
    eq([[null, 3], [null, '3']], await r.multi().incrCap('io:m', 3, 100).get('io:m').exec());
    r.defineCommand('boom', {numberOfKeys: 0, lua: "return redis.error_reply('MYERR custom failure')"});
    eq('MYERR custom failure', (await rejects(r.boom())).message);
    r.defineCommand('getRaw', {numberOfKeys: 1, lua: "return redis.call('GET', KEYS[1])"});
    const bin = Buffer.from([0, 255, 13, 10, 128]);
    eq('OK', await r.set('io:bin', bin));
    eq(bin, await r.getRawBuffer('io:bin'));
    r.defineCommand('sumKeys', {lua: "local s = 0 for _, k in ipairs(KEYS) do " +
        "s = s + tonumber(redis.call('GET', k) or 0) end return {s, #ARGV}"});
    eq('OK', await r.mset('io:a', '1', 'io:b', '2'));
    eq([3, 1], await r.sumKeys(2, 'io:a', 'io:b', 'x'));
    r.disconnect();
});

// ---------------------------------------------------------------------------

async function main() {
    let passed = 0, failed = 0, skipped = 0;
    const admin = client({db: DB});
    await ready(admin);
    for (const {name, fn} of tests) {
        try {
            await admin.flushdb();
            await Promise.race([fn(), sleep(30000).then(() => { throw new Error('timed out after 30s'); })]);
            passed++;
            console.log(`[ok] ${name}`);
        } catch (e) {
            if (e instanceof Skip) {
                skipped++;
                console.log(`[skip] ${name}: ${e.message}`);
            } else {
                failed++;
                const where = (e.stack || '').split('\n').find((l) => l.includes('ioredis_test.js')) || '';
                console.log(`[err] ${name}: ${e.message.split('\n').join('\n    ')}${where ? '\n    ' + where.trim() : ''}`);
            }
        }
        for (const c of opened.splice(0)) {
            if (c !== admin) c.disconnect();
        }
        opened.push(admin);
    }
    await admin.flushdb();
    admin.disconnect();
    console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
    return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
    console.log(`[err] ioredis: ${e.stack}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
});
