# cmdfuzz_pools.tcl -- the values tests/unit/cmdfuzz.tcl draws arguments
# from: numbers, floats and range bounds, hostile strings, the option
# keywords of Redis 7.0's commands, well-formed calls to mutate, and the
# members the fuzzer's dataset holds. Written down here (not read from COMMAND
# DOCS) so that every server gets the same arguments for the same seed.

set ::big [string repeat x 65536]
set ::numbers {
    0 1 2 3 5 10 100 -1 -2 -100 -0 00 01 +1 " 1" "1 " 1x 0x10 1e3
    127 128 255 256 511 512 513 65535 65536 1000000 100000000
    2147483647 2147483648 -2147483648 -2147483649 4294967295 4294967296
    9223372036854775807 9223372036854775808 -9223372036854775807
    -9223372036854775808 -9223372036854775809 18446744073709551615
    18446744073709551616 99999999999999999999999
}
set ::floats {
    0.0 -0.0 0.5 1.5 -3.25 1e308 1e309 -1e309 1e-320 4.9e-324 nan NaN -nan
    inf -inf +inf Infinity -infinity 1.7976931348623157e308 .5 5. 1e 1e+ 0x1p3
    "(1" "(-1" "(inf" "(-inf" "(+inf" "(nan" "(" "[" "[a" "(a" "[z" "-" "+" "[\xff"
}
set ::hostile [list "" $::big [string repeat y 1025] [string repeat w 5000] "\0" "a\0b" "\r\n" "\r" "\n" \
    "*1\r\n\$4\r\nPING\r\n" "\xff\xfe\x80" "\x00\x01\x02\x03" " " "  a  " \
    "*" "?" "\\" "\[a-" "a*" "*a*a*a*a*a*a*a*b" "h\[^e\]llo" "{tag}" "%s%n%p" \
    "\u00e9" "#" "#0" "#1" "\$" "a b" "'" "\"" "0-0" "0-1" "*-*" ">" "~" "="]
# Option keywords of Redis 7.0's commands (COMMAND DOCS tokens), written down
# here so both servers get the same arguments for the same seed.
set ::keywords {
    NX XX GT LT CH INCR EX PX EXAT PXAT KEEPTTL GET PERSIST WITHSCORES WITHSCORE
    LIMIT BYSCORE BYLEX REV MATCH COUNT TYPE STORE STOREDIST BY ASC DESC ALPHA
    LEFT RIGHT BEFORE AFTER MIN MAX SUM AGGREGATE WEIGHTS WITHVALUES IDX LEN
    MINMATCHLEN WITHMATCHLEN RANK MAXLEN BIT BYTE AND OR XOR NOT OVERFLOW WRAP
    SAT FAIL SET INCRBY i8 u8 i16 u16 i32 i64 u63 u64 u1 i1 u0 i65 REPLACE DB
    ABSTTL IDLETIME FREQ ASYNC SYNC NOSAVE SAVE NOW FORCE ABORT ON OFF YES NO
    SKIP REDIRECT BCAST PREFIX OPTIN OPTOUT NOLOOP ID USER ADDR LADDR SKIPME
    MAXAGE WRITE ALL normal master slave replica pubsub SAMPLES FULL RESET
    PEAK-RESET-TIME NEVER AUTH SETNAME HELP LIST INFO DOCS GETKEYS FILTERBY
    MODULE ACLCAT PATTERN ENCODING REFCOUNT string list hash set zset stream
    none MKSTREAM NOMKSTREAM MINID BLOCK JUSTID LASTID ENTRIESREAD STREAMS
    GROUPS CONSUMERS FROMMEMBER FROMLONLAT BYRADIUS BYBOX m km ft mi WITHCOORD
    WITHDIST WITHHASH ANY WITHCODE LIBRARYNAME FLUSH APPEND SCHEDULE TIMEOUT
    KEYS COPY ARGS NUMKEYS ERROR USAGE DOCTOR STATS PURGE GETNAME PING ECHO
    DEL TTL LATEST HISTORY GRAPH command event fork expire-cycle RESETSTAT
    REWRITE GETKEYSANDFLAGS SHARDCHANNELS CHANNELS NUMSUB NUMPAT
    allkeys-lru allkeys-lfu volatile-lfu noeviction yes no
}
# Well-formed calls, mutated by the generator (an argument replaced,
# dropped, doubled or inserted) so that the option parsers are passed more
# often than random arguments manage.
set ::examples {
    {SET s:raw v NX GET} {SET s:int 1 XX KEEPTTL GET} {SET k v PXAT 99999999999999}
    {SET k v EX 100 GET} {GETEX s:ttl PERSIST} {GETEX s:embstr EXAT 9999999999}
    {SETRANGE s:raw 5 abc} {GETRANGE s:raw -5 -1} {INCRBYFLOAT s:float 1e10}
    {LCS s:raw s:embstr IDX MINMATCHLEN 2 WITHMATCHLEN} {LCS s:raw bm LEN}
    {BITFIELD bm SET u8 0 255 GET i4 #1 INCRBY u16 100 10 OVERFLOW SAT INCRBY i8 0 200}
    {BITFIELD_RO bm GET u63 0 GET i64 8} {BITCOUNT bm 1 -1 BIT} {BITPOS bm 1 2 -1 BYTE}
    {BITOP XOR dst bm s:raw} {BITOP NOT dst bm} {SETBIT bm 1023 0}
    {LPOS l:lp 1 RANK -1 COUNT 0 MAXLEN 100} {LINSERT l:ql BEFORE 150qqq x}
    {LMPOP 2 l:lp l:ql LEFT COUNT 3} {LMOVE l:lp l:ql LEFT RIGHT} {LRANGE l:plain 0 -1}
    {LSET l:plain 2 y} {LREM l:ql -2 a} {LTRIM l:ql 1 -2} {LINDEX l:plain -5}
    {HSET h:lp f1 x new y} {HRANDFIELD h:ht -5 WITHVALUES} {HINCRBYFLOAT h:lp flt 2.5}
    {HSCAN h:ht 0 MATCH f1* COUNT 1000} {HGETALL h:ht} {HMGET h:lp f1 nosuch {}}
    {SINTERCARD 2 set:int set:ht LIMIT 1} {SMOVE set:int set:ht 1} {SRANDMEMBER set:int64 -3}
    {SPOP set:ht 2} {SUNIONSTORE dst set:int set:int64 set:ht} {SMISMEMBER set:ht a 1 z}
    {SSCAN set:int 0 COUNT 2 MATCH *1*} {SDIFF set:ht set:int missing}
    {ZADD z:lp NX CH 1 a 4 e} {ZADD z:sl GT CH INCR 5 m3} {ZADD z:lp XX LT 0.5 a}
    {ZRANGE z:sl (1 [5 BYLEX} {ZRANGE z:sl 10 0 BYSCORE REV LIMIT 1 5 WITHSCORES}
    {ZRANGE z:lp -inf +inf BYSCORE} {ZRANGE z:lp [a (z BYLEX REV LIMIT 0 -1}
    {ZRANGESTORE dst z:sl 0 -1} {ZRANGEBYSCORE z:sl (1 +inf WITHSCORES LIMIT 2 3}
    {ZRANGEBYLEX z:lp - + LIMIT 0 2} {ZREVRANGEBYLEX z:lp + -} {ZLEXCOUNT z:lp [a [c}
    {ZUNIONSTORE dst 2 z:lp z:sl WEIGHTS 1 -2 AGGREGATE MAX}
    {ZINTER 2 z:lp set:ht AGGREGATE SUM WITHSCORES} {ZDIFF 2 z:sl z:lp WITHSCORES}
    {ZINTERCARD 2 z:sl z:lp LIMIT 10} {ZMPOP 2 z:lp z:sl MIN COUNT 2}
    {ZRANDMEMBER z:sl -10 WITHSCORES} {ZREMRANGEBYSCORE z:sl -inf (10}
    {ZREMRANGEBYLEX z:lp [a [b} {ZREMRANGEBYRANK z:sl 0 5} {ZINCRBY z:lp nan a}
    {ZSCAN z:sl 0 MATCH m1* COUNT 5} {ZMSCORE z:lp a pinf nosuch} {ZRANK z:sl m7}
    {PFADD hll:dense x y} {PFCOUNT hll:sparse hll:dense} {PFMERGE dst hll:sparse hll:dense}
    {PFDEBUG GETREG hll:sparse} {PFDEBUG DECODE hll:sparse} {PFDEBUG TODENSE hll:sparse}
    {SORT l:lp ALPHA DESC LIMIT 0 5} {SORT set:int BY h:lp->f* GET # GET s:* STORE dst}
    {SORT_RO z:sl BY nosort LIMIT 1 2} {SORT l:ql BY s:* ALPHA}
    {SCAN 0 MATCH *:* COUNT 100 TYPE hash} {SCAN 0 TYPE string} {KEYS *t*}
    {COPY s:raw dst DB 1 REPLACE} {COPY z:sl z:lp REPLACE} {MOVE s:raw 1} {SWAPDB 0 1}
    {RENAME h:lp h:new} {RENAMENX l:lp l:ql} {EXPIRE s:raw 100 NX} {PEXPIRE h:ht 5 GT}
    {EXPIREAT s:int 1 LT} {PERSIST s:ttl} {TTL h:ttl} {OBJECT ENCODING hll:dense}
    {OBJECT FREQ s:raw} {MEMORY USAGE h:ht SAMPLES 0} {TYPE z:sl} {TOUCH s:raw missing}
    {DEL s:raw l:ql h:ht} {UNLINK z:sl set:ht} {FLUSHALL ASYNC} {FLUSHDB SYNC}
    {RESTORE new 0 x REPLACE ABSTTL IDLETIME 10} {RESTORE new 0 x FREQ 5} {DUMP h:ht}
    {CLIENT LIST TYPE normal ID 1 2 3} {CLIENT TRACKING on BCAST PREFIX s: PREFIX h: NOLOOP}
    {CLIENT TRACKING on OPTIN REDIRECT 1} {CLIENT CACHING yes} {CLIENT NO-EVICT on}
    {CLIENT SETNAME x} {CLIENT UNBLOCK 1 ERROR} {HELLO 3 SETNAME n AUTH default x}
    {COMMAND GETKEYS ZUNIONSTORE dst 2 a b} {COMMAND GETKEYSANDFLAGS LMOVE a b LEFT LEFT}
    {COMMAND LIST FILTERBY PATTERN z*} {COMMAND LIST FILTERBY ACLCAT list} {COMMAND INFO get set}
    {CONFIG GET *max*} {INFO all} {INFO everything} {LATENCY HISTOGRAM get set}
    {SLOWLOG GET -1} {OBJECT HELP} {XADD st * f v} {XRANGE st - + COUNT 2}
    {PUBSUB NUMSUB a b} {PUBSUB CHANNELS *} {PUBLISH ch msg} {UNSUBSCRIBE a b}
    {DEBUG OBJECT l:plain} {DEBUG DIGEST-VALUE h:ht z:sl} {DEBUG PROTOCOL attrib}
    {SETEX s:raw 100 v} {PSETEX k 1 v} {GETDEL s:int} {GETSET s:big x} {MSETNX a 1 b 2}
    {MGET s:int missing l:lp} {APPEND s:int 5} {APPEND bm x} {DECRBY s:big -1} {INCRBY s:big 1}
    {STRLEN s:int} {SUBSTR s:raw 0 -1} {SETNX s:raw x} {GETBIT bm 7} {BITCOUNT bm}
    {LPUSH l:plain x y} {RPUSHX l:lp 1 2} {LPUSHX missing 1} {LPOP l:ql 3} {RPOP l:plain 10}
    {LLEN l:plain} {LINSERT l:plain AFTER c new} {LREM l:plain 0 p} {LTRIM l:plain 2 -3}
    {RPOPLPUSH l:plain l:lp} {LMOVE l:plain l:plain RIGHT LEFT} {LPOS l:plain c}
    {HDEL h:ht f1 f2 nosuch} {HEXISTS h:lp f1} {HSETNX h:lp f9 x} {HSTRLEN h:lp num}
    {HVALS h:lp} {HKEYS h:ht} {HLEN h:ht} {HINCRBY h:lp num 5} {HGET h:ht f599}
    {HRANDFIELD h:lp 3} {HMSET h:lp a b c d} {HSET h:lp f0 vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv}
    {SADD set:int 7 8 x} {SREM set:ht a b} {SCARD set:int64} {SISMEMBER set:int 3}
    {SINTER set:int set:int64} {SINTERSTORE dst set:ht set:int} {SDIFFSTORE dst set:int set:ht}
    {SUNION set:int set:ht} {SMEMBERS set:int64} {SRANDMEMBER set:ht 3} {SPOP set:int}
    {ZCARD z:sl} {ZCOUNT z:sl (1 10} {ZREM z:lp a b} {ZSCORE z:sl m5} {ZPOPMIN z:lp 2}
    {ZPOPMAX z:sl 3} {ZUNION 3 z:lp z:sl set:int WITHSCORES} {ZINTERSTORE dst 2 z:lp z:ttl}
    {ZDIFFSTORE dst 2 z:sl z:lp} {ZREVRANGE z:sl 0 5 WITHSCORES} {ZREVRANK z:lp pinf}
    {ZADD z:lp 1 mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm} {ZRANGE z:sl 0 -1 REV} {PFCOUNT hll:dense}
    {PFDEBUG ENCODING hll:dense} {PFADD hll:new a} {EXISTS s:raw s:raw missing} {RANDOMKEY}
    {OBJECT IDLETIME s:raw} {OBJECT REFCOUNT s:int} {EXPIRETIME s:ttl} {PEXPIRETIME z:ttl}
    {PTTL h:ttl} {DBSIZE} {SELECT 1} {LATENCY RESET} {LATENCY DOCTOR} {LATENCY GRAPH command}
    {LATENCY HISTORY command} {SLOWLOG LEN} {SLOWLOG RESET} {MEMORY STATS} {MEMORY DOCTOR}
    {CONFIG RESETSTAT} {CLIENT GETREDIR} {CLIENT TRACKINGINFO} {CLIENT INFO}
    {PUBSUB NUMPAT} {PUBSUB SHARDCHANNELS} {PUBSUB SHARDNUMSUB a} {SPUBLISH ch m}
    {INFO keyspace} {DEBUG HTSTATS 0} {DEBUG DIGEST} {SAVE} {BGSAVE SCHEDULE} {DUMP s:int}
    {RESTORE s:int 0 x} {SORT l:lp BY nosort GET #} {SORT h:ht} {SORT z:lp ALPHA STORE dst}
    {EVAL "return {cmsgpack.unpack(ARGV[1])}" 0 "\x93\x01\xa1a\xcb"} {EVAL "return cmsgpack.pack(ARGV[1], tonumber(ARGV[1]))" 0 1.5}
    {EVAL "return {cmsgpack.unpack_limit(ARGV[1], tonumber(ARGV[2]))}" 0 "\x01\x02" 1}
    {EVAL "return {struct.unpack(ARGV[1], ARGV[2])}" 0 ">i2c0" "\x00\x02ab"} {EVAL "return struct.pack(ARGV[1], 7, ARGV[2])" 0 "<!4bs" x}
}

# Members and fields the dataset holds, so lookups also hit.
set ::members {a b c d 1 2 3 -5 100 f1 f2 f3 num flt m0 m1 m7 m199 ninf pinf x ""}
