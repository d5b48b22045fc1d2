# dump.tcl -- DUMP and RESTORE: payloads move between cairn and Debian's
# redis-server 7.0 in both directions for every type and encoding, the
# options (REPLACE ABSTTL IDLETIME FREQ) and their errors behave as in
# Redis, what RESTORE propagates, and corrupt payloads (every truncation,
# and random byte flips past the checksum) give an error reply, never a
# crash or a half-built key.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set ref ""
if {$::cairn(reference) ne ""} {
    set rsrv [start_server -binary $::cairn(reference)]
    set ref [client $rsrv]
}

# Builds the same value of every type in every encoding on client $k.
proc fill {k} {
    r $k FLUSHALL
    r $k SET s:int 12345
    r $k SET s:neg -98765432101
    r $k SET s:emb "hello world"
    r $k SET s:raw [string repeat "abcdefghij" 20]
    r $k SET s:bin "a\x00b\r\nc\xff"
    # Redis 7.0 has no listpack lists: a short list is a one-node quicklist.
    r $k RPUSH l:lp a b 1 2 -3 [string repeat x 60]
    for {set i 0} {$i < 300} {incr i} { r $k RPUSH l:ql "element-$i" }
    r $k HSET h:lp f1 v1 f2 2 f3 [string repeat y 30]
    for {set i 0} {$i < 600} {incr i} { r $k HSET h:ht "field-$i" "value-$i" }
    r $k SADD set:int 1 2 3 -4 100000 4294967296
    for {set i 0} {$i < 100} {incr i} { r $k SADD set:ht "member-$i" }
    r $k ZADD z:lp 1 a 2.5 b -3 c 1e10 d
    for {set i 0} {$i < 200} {incr i} { r $k ZADD z:sl [expr {$i * 1.5}] "m-$i" }
    r $k PFADD hll:sparse a b c
    for {set i 0} {$i < 5000} {incr i} { lappend els $i }
    r $k PFADD hll:dense {*}$els
    r $k SETBIT bits 1000 1
}

set expected_encoding {
    s:int int s:neg int s:emb embstr s:raw raw s:bin embstr l:lp quicklist l:ql quicklist
    h:lp listpack h:ht hashtable set:int intset set:ht hashtable z:lp listpack z:sl skiplist
    hll:sparse raw hll:dense raw bits raw
}

# A restored string of up to 44 bytes is embstr, whatever built it (Redis
# does the same): the only key here whose copy differs.
proc restored_encoding {key enc} {
    return [expr {$key eq "hll:sparse" ? "embstr" : $enc}]
}

# Keys whose compact encodings make the payload bytes deterministic, so
# cairn's DUMP must equal redis-server's byte for byte.
set compact {s:int s:neg s:emb s:raw s:bin l:lp l:ql h:lp set:int z:lp hll:sparse hll:dense bits}

test "DUMP then RESTORE round-trips every type and encoding" {
    fill $c
    foreach {key enc} $expected_encoding {
        assert_equal $enc [r $c OBJECT ENCODING $key] "encoding of $key"
        set digest [r $c DEBUG DIGEST-VALUE $key]
        set payload [r $c DUMP $key]
        r $c RESTORE copy:$key 0 $payload
        assert_equal $digest [r $c DEBUG DIGEST-VALUE copy:$key] "value of $key"
        assert_equal [restored_encoding $key $enc] [r $c OBJECT ENCODING copy:$key] "encoding of the copy of $key"
        assert_equal -1 [r $c PTTL copy:$key]
    }
    assert_equal "" [r $c DUMP nosuchkey]
}

test "Payloads are byte-identical with redis-server for compact encodings" {
    if {$ref eq ""} { skip_test "no reference server" }
    fill $c
    fill $ref
    foreach key $compact {
        assert_equal [r $ref DUMP $key] [r $c DUMP $key] "DUMP $key"
    }
}

test "redis-server's payloads RESTORE in cairn, and cairn's in redis-server" {
    if {$ref eq ""} { skip_test "no reference server" }
    fill $c
    fill $ref
    foreach {key enc} $expected_encoding {
        set want [r $ref DEBUG DIGEST-VALUE $key]
        r $c RESTORE from-redis:$key 0 [r $ref DUMP $key]
        assert_equal $want [r $c DEBUG DIGEST-VALUE from-redis:$key] "redis -> cairn: $key"
        assert_equal [restored_encoding $key $enc] [r $c OBJECT ENCODING from-redis:$key]
        r $ref RESTORE from-cairn:$key 0 [r $c DUMP $key]
        assert_equal $want [r $ref DEBUG DIGEST-VALUE from-cairn:$key] "cairn -> redis: $key"
        assert_equal [restored_encoding $key $enc] [r $ref OBJECT ENCODING from-cairn:$key]
    }
}

test "RESTORE: BUSYKEY, REPLACE, TTL, ABSTTL, IDLETIME and option errors" {
    r $c FLUSHALL
    r $c SET k v
    set p [r $c DUMP k]
    assert_error "BUSYKEY Target key name already exists." {r $c RESTORE k 0 $p}
    r $c SET k other
    assert_equal OK [r $c RESTORE k 0 $p REPLACE]
    assert_equal v [r $c GET k]
    r $c EXPIRE k 1000
    assert_equal OK [r $c RESTORE k 0 $p REPLACE]
    assert_equal -1 [r $c TTL k] "REPLACE drops the old TTL"
    assert_equal OK [r $c RESTORE t 50000 $p]
    set pttl [r $c PTTL t]
    assert {$pttl > 45000 && $pttl <= 50000}
    set at [expr {[clock milliseconds] + 100000}]
    assert_equal OK [r $c RESTORE a $at $p ABSTTL]
    assert_equal $at [r $c PEXPIRETIME a]
    # An instant in the past: nothing is created, a replaced key is deleted.
    assert_equal OK [r $c RESTORE gone 1 $p ABSTTL]
    assert_equal 0 [r $c EXISTS gone]
    assert_equal OK [r $c RESTORE k 1 $p ABSTTL REPLACE]
    assert_equal 0 [r $c EXISTS k]
    assert_equal OK [r $c RESTORE idle 0 $p IDLETIME 1000]
    set idle [r $c OBJECT IDLETIME idle]
    assert {$idle >= 1000 && $idle < 1010} "IDLETIME 1000 gave $idle"
    assert_error "ERR Invalid TTL value, must be >= 0" {r $c RESTORE x -1 $p}
    assert_error "ERR Invalid IDLETIME value, must be >= 0" {r $c RESTORE x 0 $p IDLETIME -1}
    assert_error "ERR Invalid FREQ value, must be >= 0 and <= 255" {r $c RESTORE x 0 $p FREQ 256}
    assert_error "ERR syntax error" {r $c RESTORE x 0 $p IDLETIME 1 FREQ 1}
    assert_error "ERR syntax error" {r $c RESTORE x 0 $p BOGUS}
    assert_error "ERR syntax error" {r $c RESTORE x 0 $p IDLETIME}
    assert_error "ERR value is not an integer or out of range" {r $c RESTORE x abc $p}
    assert_error "ERR DUMP payload version or checksum are wrong" {r $c RESTORE x 0 "garbage"}
    assert_error "ERR wrong number of arguments for 'restore' command" {r $c RESTORE x 0}
    assert_equal 0 [r $c EXISTS x]
}

test "RESTORE with a relative TTL propagates an absolute one; an expired one a DEL" {
    r $c FLUSHALL
    r $c SET k v
    set p [r $c DUMP k]
    r $c DEL k
    propagated
    set before [clock milliseconds]
    r $c RESTORE k 100000 $p
    set got [propagated]
    assert_match "*RESTORE*ABSTTL*" $got
    regexp {\$[0-9]+\r\n([0-9]+)\r\n} [string range $got [string first "\$1\r\nk\r\n" $got] end] -> when
    assert {$when >= $before + 100000 && $when <= [clock milliseconds] + 100000}
    r $c RESTORE k 1 $p ABSTTL REPLACE
    assert_match "*DEL*" [propagated]
}

test "RESTORE of a payload from a newer RDB version is refused" {
    r $c SET k v
    set p [r $c DUMP k]
    # Version bytes sit just before the 8-byte CRC: make them 12.
    set n [string length $p]
    set bad "[string range $p 0 [expr {$n - 11}]]\x0c\x00[string range $p [expr {$n - 8}] end]"
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 1
    assert_error "ERR DUMP payload version or checksum are wrong" {r $c RESTORE v12 0 $bad}
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 0
}

test "Every truncation of every payload is refused cleanly" {
    fill $c
    set tried 0
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 1
    foreach key $compact {
        set p [r $c DUMP $key]
        set n [string length $p]
        # Cut the body, keep a plausible footer (version 10, any CRC).
        for {set cut 1} {$cut < $n - 10} {incr cut [expr {$n > 400 ? 7 : 1}]} {
            set bad "[string range $p 0 [expr {$cut - 1}]][string range $p end-9 end]"
            catch {r $c RESTORE trunc 0 $bad} res
            assert_match "*ERR Bad data format*" $res "cut $cut of $key: $res"
            incr tried
        }
    }
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 0
    assert_equal 0 [r $c EXISTS trunc]
    assert_equal PONG [r $c PING]
    puts "    ($tried truncated payloads)"
}

test "Random byte flips past the checksum: an error or a sound value, never a crash" {
    fill $c
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 1
    expr {srand(4242)}
    set ok 0
    set refused 0
    foreach {key enc} $expected_encoding {
        set p [r $c DUMP $key]
        set n [expr {[string length $p] - 10}]
        for {set i 0} {$i < 60} {incr i} {
            set bad $p
            for {set f 0} {$f < 1 + int(rand() * 3)} {incr f} {
                set at [expr {int(rand() * $n)}]
                set byte [format %c [expr {int(rand() * 256)}]]
                set bad [string replace $bad $at $at $byte]
            }
            if {[catch {r $c RESTORE flip 0 $bad REPLACE} res]} {
                assert_match "*ERR Bad data format*" $res
                incr refused
                continue
            }
            incr ok
            # A value that loaded must behave: read it whole, re-dump it.
            switch [r $c TYPE flip] {
                string { r $c STRLEN flip; r $c GETRANGE flip 0 -1 }
                list { r $c LRANGE flip 0 -1; r $c LLEN flip; r $c LINDEX flip -1 }
                set { r $c SMEMBERS flip; r $c SCARD flip; r $c SRANDMEMBER flip 3 }
                zset { r $c ZRANGE flip 0 -1 WITHSCORES; r $c ZCARD flip; r $c ZRANGEBYSCORE flip -inf +inf }
                hash { r $c HGETALL flip; r $c HLEN flip }
            }
            r $c DEBUG DIGEST-VALUE flip
            r $c RESTORE flip2 0 [r $c DUMP flip] REPLACE
            assert_equal [r $c DEBUG DIGEST-VALUE flip] [r $c DEBUG DIGEST-VALUE flip2]
        }
    }
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 0
    assert_equal PONG [r $c PING]
    puts "    ($refused refused, $ok loaded and checked)"
}

test "A flipped byte with the checksum on is caught by the CRC" {
    r $c SET k [string repeat z 100]
    set p [r $c DUMP k]
    set bad [string replace $p 5 5 [expr {[string index $p 5] eq "Q" ? "R" : "Q"}]]
    assert_error "ERR DUMP payload version or checksum are wrong" {r $c RESTORE k2 0 $bad}
}

test "A quicklist payload with an empty node (plain or listpack) is refused" {
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 1
    # type 18 (QUICKLIST_2), one node, container 1 (plain) or 2 (packed),
    # a zero-length blob; RDB version 10 and a checksum nobody checks
    foreach container {1 2} {
        set p "\x12\x01[binary format c $container]\x00\x0a\x00[string repeat \x00 8]"
        assert_error "*Bad data format*" {r $c RESTORE emptynode 0 $p REPLACE}
        assert_equal 0 [r $c EXISTS emptynode]
    }
    r $c DEBUG SET-SKIP-CHECKSUM-VALIDATION 0
    assert_equal PONG [r $c PING]
}

finish
