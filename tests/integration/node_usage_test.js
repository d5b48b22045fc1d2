#!/usr/bin/env node
// node_usage_test.js HOST PORT -- typical application use of the two Node
// client libraries, run by tests/integration/clients.tcl against cairn and
// against the reference redis-server, whose outputs it compares line by
// line. ioredis 5 (scan streams, Pub/Sub and resubscribe after a kill,
// defineCommand, pipelines, MULTI/WATCH, blocking pops, MONITOR,
// reconnection, ready check, connectionName, db) and, if tests/clients has
// it, node-redis 4 (the npm "redis" package: typed commands, MULTI and
// WatchError, scanIterator, scripts and functions, Pub/Sub, HELLO).
//
// Prints one line per step, "NAME: JSON of what the library returned" (or
// "NAME: ERR Class message"), nothing that differs between two servers
// (ids, ports, times), and "done" last. Flushes every database.

'use strict';
const path = require('path');
const modules = path.join(__dirname, '..', 'clients', 'node_modules');
const Redis = require(path.join(modules, 'ioredis'));
let nodeRedis = null;
try {
    nodeRedis = require(path.join(modules, 'redis'));
} catch (e) {
    nodeRedis = null;
}

const HOST = process.argv[2];
const PORT = +process.argv[3];
if (!HOST || !PORT) {
    console.error('usage: node_usage_test.js HOST PORT');
    process.exit(2);
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

function show(v) {
    return JSON.stringify(v, (k, x) => {
        if (x && x.type === 'Buffer' && Array.isArray(x.data)) return 'buf:' + Buffer.from(x.data).toString('hex');
        if (typeof x === 'bigint') return x.toString();
        if (x instanceof Error) return 'ERR ' + x.constructor.name + ' ' + x.message;
        return x;
    });
}

async function step(name, fn) {
    let out;
    try {
        out = show(await Promise.race([fn(), sleep(8000).then(() => { throw new Error('timed out'); })]));
    } catch (e) {
        out = 'ERR ' + e.constructor.name + ' ' + e.message;
    }
    console.log(name + ': ' + out);
}

function io(opts = {}) {
    return new Redis({host: HOST, port: PORT, ...opts});
}

function drain(stream) {
    return new Promise((res, rej) => {
        const items = [];
        stream.on('data', (d) => items.push(...d));
        stream.on('end', () => res(items));
        stream.on('error', rej);
    });
}

async function ioredisSteps() {
    const r = io();
    await r.flushall();
    const fill = r.pipeline();
    for (let i = 0; i < 150; i++) fill.set('k' + i, i);
    fill.hset('h', Object.fromEntries([...Array(200).keys()].map((i) => ['f' + i, i])));
    fill.sadd('s', ...[...Array(300).keys()]);
    fill.zadd('z', ...[...Array(300).keys()].flatMap((i) => [i, 'm' + i]));
    await fill.exec();

    await step('io scanStream', async () => (await drain(r.scanStream({match: 'k*', count: 10}))).length);
    await step('io scanStream type', async () => drain(r.scanStream({type: 'hash'})));
    await step('io hscanStream', async () => (await drain(r.hscanStream('h', {count: 20}))).length);
    await step('io sscanStream', async () => (await drain(r.sscanStream('s', {match: '1*'}))).sort());
    await step('io zscanStream', async () => (await drain(r.zscanStream('z', {count: 50}))).length);

    await step('io pubsub', async () => {
        const sub = io();
        const got = [];
        sub.on('message', (ch, m) => got.push(['message', ch, m]));
        sub.on('pmessage', (p, ch, m) => got.push(['pmessage', p, ch, m]));
        const counts = [await sub.subscribe('news', 'music'), await sub.psubscribe('n*')];
        let refused;
        try {
            await sub.get('x');
        } catch (e) {
            refused = e.message;
        }
        const pong = await sub.ping();
        const receivers = [await r.publish('news', 'hello'), await r.publish('music', 'tune')];
        await sleep(200);
        const numsub = await r.pubsub('NUMSUB', 'news', 'music', 'none');
        const numpat = await r.pubsub('NUMPAT');
        // (a bare punsubscribe() never resolves in ioredis 5, on Redis too)
        counts.push(await sub.unsubscribe('news'), await sub.punsubscribe('n*'));
        sub.disconnect();
        return [counts, refused, pong, receivers, got.sort(), numsub, numpat];
    });
    await step('io ssubscribe', async () => {
        const sub = io();
        const got = [];
        sub.on('smessage', (ch, m) => got.push([ch, m]));
        const n = await sub.ssubscribe('shard');
        const c = await r.spublish('shard', 'x');
        await sleep(200);
        sub.disconnect();
        return [n, c, got];
    });

    r.defineCommand('myecho', {numberOfKeys: 2, lua: 'return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}'});
    await step('io defineCommand', () => r.myecho('k1', 'k2', 'a1', 'a2'));
    await step('io defineCommand Buffer', () => r.myechoBuffer('k1', 'k2', 'a1', 'a2'));
    await step('io defineCommand after SCRIPT FLUSH', async () => {
        await r.script('FLUSH');
        return r.myecho('x', 'y', 'z', 'w');
    });
    await step('io defineCommand in a pipeline', async () => {
        await r.script('FLUSH');
        return r.pipeline().myecho('p', 'q', 'r', 's').get('k1').exec();
    });

    await step('io pipeline with an error', () => r.pipeline().set('p', 1).incr('p').lpush('p', 1).get('p').exec());
    await step('io multi', () => r.multi().set('m', 1).incr('m').get('m').exec());
    await step('io multi, error at EXEC', () => r.multi().set('m', 1).lpush('m', 1).incr('m').exec());
    await step('io multi, error when queued', () => r.multi().set('m').incr('m').exec());
    await step('io watch then a write elsewhere', async () => {
        const w = io();
        await w.watch('wk');
        await r.set('wk', 1);
        const res = await w.multi().set('wk', 2).exec();
        w.disconnect();
        return [res, await r.get('wk')];
    });

    await step('io blpop woken by a push', async () => {
        const b = io();
        const p = b.blpop('bl', 5);
        await sleep(100);
        await r.rpush('bl', 'v');
        const res = await p;
        b.disconnect();
        return res;
    });
    await step('io blpop timeout', () => r.blpop('nobl', 0.2));
    await step('io brpoplpush', async () => {
        await r.rpush('src', 'a');
        return [await r.brpoplpush('src', 'dst', 1), await r.lrange('dst', 0, -1)];
    });
    await step('io bzpopmin', async () => {
        await r.zadd('bz', 1, 'a');
        return r.bzpopmin('bz', 1);
    });
    await step('io getBuffer', async () => {
        await r.set('bin', Buffer.from([1, 2, 255, 0]));
        return r.getBuffer('bin');
    });
    await step('io hgetall of no key', () => r.hgetall('nohash'));
    await step('io zrange WITHSCORES', () => r.zrange('z', 0, 2, 'WITHSCORES'));
    await step('io sort DESC', async () => {
        await r.rpush('sl', 3, 1, 2);
        return r.sort('sl', 'DESC');
    });
    await step('io call', () => r.call('LPOS', 'nolist', 'x'));
    await step('io unknown command', () => r.call('NOSUCHCMD'));
    await step('io wrong type', () => r.lpush('k1', 1));

    await step('io monitor', async () => {
        const m = await r.duplicate().monitor();
        const got = [];
        m.on('monitor', (t, args, src, db) => got.push([args, db]));
        await sleep(100);
        await r.set('mon', 'x');
        await r.get('mon');
        await sleep(300);
        m.disconnect();
        return got;
    });
    await step('io reconnect after CLIENT KILL', async () => {
        const x = io({retryStrategy: () => 50});
        await x.set('rc', 1);
        const id = await x.client('ID');
        const ready = new Promise((res) => x.once('ready', res));
        await r.client('KILL', 'ID', id);
        await ready;
        const v = await x.get('rc');
        x.disconnect();
        return v;
    });
    await step('io resubscribe after CLIENT KILL', async () => {
        const x = io({retryStrategy: () => 50, connectionName: 'io-resub'});
        const got = [];
        x.on('message', (c, m) => got.push(m));
        await x.subscribe('rs');
        const id = (await r.client('LIST', 'TYPE', 'pubsub')).match(/id=(\d+) [^\n]* name=io-resub /)[1];
        const ready = new Promise((res) => x.once('ready', res));
        await r.client('KILL', 'ID', id);
        await ready;
        await sleep(200);
        const n = await r.publish('rs', 'after');
        await sleep(200);
        x.disconnect();
        return [n, got];
    });
    await step('io offline queue', async () => {
        const x = io({lazyConnect: true});
        const p = x.set('queued', 'yes');
        x.connect().catch(() => {});
        const res = [await p, await x.get('queued')];
        x.disconnect();
        return res;
    });
    await step('io db and connectionName', async () => {
        const x = io({db: 4, connectionName: 'io-name'});
        await x.set('d4', 1);
        const res = [await x.dbsize(), await x.client('GETNAME'), await r.dbsize()];
        x.disconnect();
        return res;
    });
    await step('io ready check', async () => {
        const x = io({enableReadyCheck: true});
        await new Promise((res) => x.once('ready', res));
        const res = [x.status, (await x.info('persistence')).includes('loading:0')];
        x.disconnect();
        return res;
    });
    await step('io quit', async () => {
        const x = io();
        await x.ping();
        return x.quit();
    });
    await r.flushall();
    r.disconnect();
}

async function nodeRedisSteps() {
    const {createClient, commandOptions} = nodeRedis;
    const c = createClient({socket: {host: HOST, port: PORT}, name: 'nodeclient'});
    c.on('error', () => {});
    await c.connect();
    await c.flushAll();
    await step('nr client name', () => c.clientGetName());
    await step('nr set NX EX and get', async () => [await c.set('k', 'v', {EX: 100, NX: true}), await c.get('k'), await c.ttl('k')]);
    await step('nr get as Buffer', () => c.get(commandOptions({returnBuffers: true}), 'k'));
    await step('nr hSet and hGetAll', async () => [await c.hSet('h', {a: 1, b: 'x'}), await c.hGetAll('h')]);
    await step('nr zAdd and zRangeWithScores', async () => [
        await c.zAdd('z', [{score: 1, value: 'a'}, {score: 2.5, value: 'b'}]),
        await c.zRangeWithScores('z', 0, -1),
        await c.zRange('z', '+inf', '-inf', {BY: 'SCORE', REV: true, LIMIT: {offset: 0, count: 1}}),
    ]);
    await step('nr zmPop and lmPop', async () => {
        await c.lPush('l', ['1', '2', '3']);
        return [await c.zmPop(['z'], 'MIN'), await c.lmPop(['l'], 'LEFT', {COUNT: 2})];
    });
    await step('nr sets', async () => [await c.sAdd('s', ['x', 'y']), (await c.sMembers('s')).sort(), await c.smIsMember('s', ['x', 'q'])]);
    await step('nr multi', () => c.multi().set('a', '1').incr('a').get('a').exec());
    await step('nr multi with a failing command', () => c.multi().set('a', '1').lPush('a', 'x').get('a').exec());
    await step('nr WatchError', async () => {
        const d = c.duplicate();
        await d.connect();
        await d.watch('w');
        await c.set('w', 'changed');
        let res;
        try {
            res = await d.multi().set('w', 'mine').exec();
        } catch (e) {
            res = e.constructor.name;
        }
        await d.quit();
        return [res, await c.get('w')];
    });
    await step('nr scanIterator', async () => {
        const keys = [];
        for await (const k of c.scanIterator({MATCH: '*', COUNT: 2})) keys.push(k);
        return keys.sort();
    });
    await step('nr eval and evalSha', async () => [
        await c.eval('return {KEYS[1], ARGV[1], 3}', {keys: ['kk'], arguments: ['aa']}),
        await c.scriptLoad('return 1'),
        await c.evalSha('e0e1f9fabfc9d4800c877a703b823ac0578ff8db'),
    ]);
    await step('nr functions', async () => {
        await c.functionFlush();
        const lib = "#!lua name=nlib\nredis.register_function('nf', function(k, a) return a[1] end)";
        return [await c.functionLoad(lib), await c.fCall('nf', {arguments: ['hi']}), await c.functionList()];
    });
    await step('nr clientInfo', async () => {
        const i = await c.clientInfo();
        return [i.name, i.db, typeof i.id];
    });
    await step('nr aclGetUser default', () => c.aclGetUser('default'));
    await step('nr bitField', () => c.bitField('bf', [
        {operation: 'SET', encoding: 'u8', offset: 0, value: 200},
        {operation: 'GET', encoding: 'u8', offset: 0}]));
    await step('nr isolated blPop timeout', () => c.blPop(commandOptions({isolated: true}), 'nolist', 0.2));
    await step('nr pubsub', async () => {
        const sub = c.duplicate();
        await sub.connect();
        const got = [];
        await sub.subscribe('ch', (m, ch) => got.push([ch, m]));
        await sub.pSubscribe('c*', (m, ch) => got.push(['p', ch, m]));
        const n = await c.publish('ch', 'hello');
        await sleep(200);
        const res = [n, got.sort(), (await c.pubSubChannels()).sort(), await c.pubSubNumSub(['ch']), await c.pubSubNumPat()];
        await sub.disconnect();
        return res;
    });
    await step('nr sSubscribe', async () => {
        const sub = c.duplicate();
        await sub.connect();
        const got = [];
        await sub.sSubscribe('sch', (m, ch) => got.push([ch, m]));
        const n = await c.sPublish('sch', 'x');
        await sleep(200);
        await sub.disconnect();
        return [n, got];
    });
    await step('nr errors', async () => {
        const out = [];
        for (const f of [() => c.lPush('k', 'x'), () => c.sendCommand(['NOSUCH', 'x'])]) {
            try {
                out.push(await f());
            } catch (e) {
                out.push(e.message);
            }
        }
        return out;
    });
    await step('nr hello', async () => {
        const h = await c.hello();
        return [h.server, h.version, h.proto, h.mode, h.role, h.modules];
    });
    await step('nr database option', async () => {
        const d = c.duplicate({database: 3});
        await d.connect();
        await d.set('db3', '1');
        const n = await d.dbSize();
        await d.quit();
        return n;
    });
    await c.flushAll();
    await c.functionFlush();
    await c.quit();
}

(async () => {
    await ioredisSteps();
    if (nodeRedis) await nodeRedisSteps();
    else console.log('node-redis: not installed in tests/clients/node_modules');
    console.log('done');
    process.exit(0);
})().catch((e) => {
    console.log('FATAL ' + (e && e.stack));
    process.exit(1);
});
