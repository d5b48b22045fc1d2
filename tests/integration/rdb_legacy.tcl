# rdb_legacy.tcl -- the committed snapshots in tests/assets (README.md there
# says how each was made): RDB version 10 written by redis-server 7.0 and
# hand-built versions 6 to 9 (Redis 2.8 to 5.0) with zipmap, ziplist,
# intset, quicklist, text and binary scores, LZF and integer strings, IDLE
# and FREQ opcodes. Each file loads at start-up and holds exactly the
# contents written below (types, values, expire times, databases, and the
# encodings cairn converts them to); the reference server loads each into
# the same data; cairn-check-rdb accepts each; and the hand-built files
# hold the blob bytes worked out by hand from the format's description.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set assets [file normalize [file join [file dirname [info script]] .. assets]]
set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }
set is_cairn [string match *cairn* [file tail $::cairn(server)]]

# 2100-01-01T00:00:00Z in ms, the expire times in the files.
set t2100 4102444800000

# Every key of databases 0-15 as {db key type pexpiretime value}, values in
# a canonical form (sets sorted, hashes sorted by field).
proc contents {c} {
    set out {}
    for {set db 0} {$db < 16} {incr db} {
        r $c SELECT $db
        foreach key [lsort [r $c KEYS *]] {
            set type [r $c TYPE $key]
            switch -- $type {
                string { set v [r $c GET $key] }
                list { set v [r $c LRANGE $key 0 -1] }
                set { set v [lsort [r $c SMEMBERS $key]] }
                zset { set v [r $c ZRANGE $key 0 -1 WITHSCORES] }
                hash {
                    set v {}
                    foreach {f x} [r $c HGETALL $key] { lappend v [list $f $x] }
                    set v [concat {*}[lsort -index 0 $v]]
                }
            }
            lappend out [list $db $key $type [r $c PEXPIRETIME $key] $v]
        }
    }
    r $c SELECT 0
    return $out
}

# Start a server of `binary` on a copy of the asset file.
proc start_on {binary name} {
    set srv [start_server -binary $binary]
    stop_server $srv
    file copy -force [file join $::assets $name] [file join [dict get $srv dir] dump.rdb]
    return [restart_server $srv]
}

proc encodings {c pairs} {
    set out {}
    foreach {db key} $pairs {
        r $c SELECT $db
        lappend out [r $c OBJECT ENCODING $key]
    }
    r $c SELECT 0
    return $out
}

set L100 [string repeat L 100]
set expected {
    v6-redis2.8.rdb {
        {0 h:plain hash -1 {f1 v1 f2 v2}}
        {0 h:ziplist hash -1 {a 1 b two}}
        {0 h:zipmap hash -1 {name cairn ver 6}}
        {0 l:linked list -1 {a b 12}}
        {0 l:ziplist list -1 {x 7 -3 300 yy}}
        {0 s:expire-ms string 4102444800123 later}
        {0 s:expire-sec string 2145916800000 soon}
        {0 s:int16 string -1 -1000}
        {0 s:int32 string -1 100000}
        {0 s:int8 string -1 100}
        {0 s:lzf string -1 abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc}
        {0 s:plain string -1 hello}
        {0 set:intset set -1 {-5 3 300}}
        {0 set:plain set -1 {m1 m2}}
        {0 z:text zset -1 {b -inf a 1.5 c 10}}
        {0 z:ziplist zset -1 {x 1 y 2.5}}
        {2 db2:key string -1 x}
    }
    v7-redis3.2.rdb {
        {0 h:ziplist hash 4102444800000 {f1 v1 f2 2}}
        {0 l:quicklist list -1 {a b c 1 2}}
        {0 set:intset set -1 {-70000 70000}}
        {0 z:ziplist zset -1 {a 1 b 2.5 c 30}}
    }
    v8-redis4.0.rdb {
        {0 l:quicklist list -1 {short LONG}}
        {0 s:plain string -1 v8}
        {0 set:intset64 set -1 {-1 5000000000}}
        {0 z:skiplist zset -1 {b -2 a 1.25}}
    }
    v9-redis5.0.rdb {
        {0 h:ziplist hash 4102444800999 {k -100000 k2 9000000000}}
        {0 s:len32 string -1 abc}
        {0 s:len64 string -1 xyz}
        {5 z:ziplist zset -1 {m -1 n 3.75}}
    }
}
set expected [string map [list LONG $L100] $expected]

# The encodings each file's keys get here, as Redis 7.0 converts them.
set expected_encodings {
    v6-redis2.8.rdb {0 h:zipmap 0 h:ziplist 0 h:plain 0 l:ziplist 0 l:linked 0 set:intset 0 set:plain 0 z:ziplist 0 z:text 0 s:int8 0 s:lzf}
    {listpack listpack listpack quicklist quicklist intset hashtable listpack listpack int raw}
    v7-redis3.2.rdb {0 l:quicklist 0 h:ziplist 0 z:ziplist 0 set:intset}
    {quicklist listpack listpack intset}
    v8-redis4.0.rdb {0 z:skiplist 0 l:quicklist 0 set:intset64}
    {listpack quicklist intset}
    v9-redis5.0.rdb {0 h:ziplist 5 z:ziplist 0 s:len64}
    {listpack listpack embstr}
}

foreach {name want} $expected {
    test "$name loads with exactly its contents" {
        set srv [start_on $::cairn(server) $name]
        set c [client $srv]
        assert_equal [join $want \n] [join [contents $c] \n]
        foreach {n pairs encs} $expected_encodings {
            if {$n eq $name} { assert_equal $encs [encodings $c $pairs] "encodings in $name" }
        }
        kill_server $srv
    }
}

test "redis-7.0.rdb (written by redis-server 7.0.15) loads with exactly its contents and encodings" {
    set srv [start_on $::cairn(server) redis-7.0.rdb]
    set c [client $srv]
    set got [contents $c]
    set big {}
    for {set i 0} {$i < 200} {incr i} { lappend big "element-$i-[string repeat e 40]" }
    set ht {}
    for {set i 0} {$i < 600} {incr i} { lappend ht [list "f$i" "v$i"] }
    set sl {}
    for {set i 0} {$i < 130} {incr i} {
        set s [expr {$i * 0.5}]
        lappend sl "m$i" [expr {$i % 2 ? $s : int($s)}]
    }
    set sets {}
    for {set i 0} {$i < 20} {incr i} { lappend sets "m$i" }
    set want [list \
        [list 0 h:ht hash -1 [concat {*}[lsort -index 0 $ht]]] \
        [list 0 h:lp hash $t2100 {f1 v1 f2 2}] \
        [list 0 l:big list -1 $big] \
        [list 0 l:small list -1 {a b 1 -2}] \
        [list 0 s:emb string -1 {hello world}] \
        [list 0 s:int string -1 12345] \
        [list 0 s:lzf string -1 [string repeat "compressible " 20]] \
        [list 0 s:raw string -1 [string repeat abcdefghij 6]] \
        [list 0 s:ttl string -1 v] \
        [list 0 set:ht set -1 [lsort $sets]] \
        [list 0 set:int set -1 {-4 1 2 3 4294967296}] \
        [list 0 z:lp zset -1 {c -3 a 1 b 2.5}] \
        [list 0 z:sl zset -1 $sl] \
        [list 3 db3:k string -1 v]]
    # s:ttl's expire time is checked on its own (PXAT), the rest in one piece.
    set want [lreplace $want 8 8 [list 0 s:ttl string [expr {$t2100 + 42}] v]]
    assert_equal [join $want \n] [join $got \n]
    assert_equal {int embstr raw raw quicklist quicklist listpack hashtable intset hashtable listpack skiplist} \
        [encodings $c {0 s:int 0 s:emb 0 s:raw 0 s:lzf 0 l:small 0 l:big 0 h:lp 0 h:ht 0 set:int 0 set:ht 0 z:lp 0 z:sl}]
    kill_server $srv
}

test "The reference server loads every committed file into the same data" {
    if {$ref eq ""} { skip_test "no reference server" }
    foreach name {v6-redis2.8.rdb v7-redis3.2.rdb v8-redis4.0.rdb v9-redis5.0.rdb redis-7.0.rdb} {
        set srv [start_on $::cairn(server) $name]
        set rsrv [start_on $ref $name]
        set c [client $srv]
        set rc [client $rsrv]
        assert_equal [contents $rc] [contents $c] "contents of $name"
        assert_equal [r $rc DEBUG DIGEST] [r $c DEBUG DIGEST] "digest of $name"
        kill_server $srv
        kill_server $rsrv
    }
}

test "cairn-check-rdb accepts every committed file and counts its keys" {
    if {!$is_cairn} { skip_test "cairn-check-rdb is cairn's" }
    foreach {name keys} {v6-redis2.8.rdb 17 v7-redis3.2.rdb 4 v8-redis4.0.rdb 4 v9-redis5.0.rdb 4 redis-7.0.rdb 14} {
        set out [exec $::cairn(server) --check-rdb [file join $assets $name] 2>@1]
        assert_match "*$keys keys*" $out "check of $name"
    }
}

# The hex below was worked out by hand from the encodings' layouts (see
# tests/assets/README.md), not produced by the generator: each blob must
# appear in the committed file, as the value of its key.
test "The hand-built files hold the documented bytes for each blob" {
    set hexes {
        v6-redis2.8.rdb {
            "0a 09 6c3a7a69706c697374 1b 1b000000 16000000 0500 000178 03f8 02fefd 03c02c01 04027979 ff"
            "0b 0a 7365743a696e74736574 0e 02000000 03000000 fbff 0300 2c01"
            "09 08 683a7a69706d6170 15 02 046e616d65 0500636169726e 03766572 010036 ff"
            "00 05 733a6c7a66 c3 07 3c 02616263e03002"
            "fd 8017e87f 00 0c 733a6578706972652d736563"
            "0d 09 683a7a69706c697374 18 18000000 12000000 0400 000161 03f2 020162 030374776f ff"
        }
        v8-redis4.0.rdb {
            "f8 412c 0e"
            "f9 2a 0b"
            "05 0a 7a3a736b69706c697374 02 0161 000000000000f43f 0162 00000000000000c0"
        }
    }
    foreach {name list} $hexes {
        set bytes [read_bytes [file join $assets $name]]
        foreach hex $list {
            set blob [binary format H* [string map {" " ""} $hex]]
            assert {[string first $blob $bytes] >= 0} "$name holds $hex"
        }
    }
    # And the file's last 8 bytes are the CRC-64 of the rest (checked by
    # loading: a wrong one is refused).
    set bytes [read_bytes [file join $assets v6-redis2.8.rdb]]
    set srv [start_server]
    stop_server $srv
    write_bytes [file join [dict get $srv dir] dump.rdb] [string replace $bytes end end [format %c [expr {([scan [string index $bytes end] %c] + 1) % 256}]]]
    catch {restart_server $srv} err
    assert_match "*checksum*" [string tolower $err]
}

finish
