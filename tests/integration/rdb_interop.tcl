# rdb_interop.tcl -- snapshots move between cairn and redis-server 7.0 in
# both directions with the same data (types, encodings, expire times,
# DEBUG DIGEST), and files in the encodings older Redis versions wrote
# (ziplists, zipmaps, quicklists of ziplists, text scores, plain lists) and
# Redis 7.2 writes (listpack sets) load as Redis 7.0 loads them.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers rdbgen.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }
set is_cairn [string match *cairn* [file tail $::cairn(server)]]

proc dump_path {srv} { return [file join [dict get $srv dir] dump.rdb] }

# Restart srv on `bytes` as its dump.rdb.
proc restart_on {srv bytes} {
    stop_server $srv
    write_bytes [dump_path $srv] $bytes
    return [restart_server $srv]
}


set srv [start_server]
set c [client $srv]

test "redis-server's snapshot loads into this server with the same data" {
    if {$ref eq ""} { skip_test "no reference server" }
    set rs [start_server -binary $ref]
    set rc [client $rs]
    rdbdata_populate $rc
    set digest [r $rc DEBUG DIGEST]
    set meta [rdbdata_meta $rc]
    r $rc SAVE
    set bytes [read_bytes [dump_path $rs]]
    kill_server $rs
    set srv [restart_on $srv $bytes]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    dict for {k v} $meta {
        set mine [dict get [rdbdata_meta $c] $k]
        assert_equal $v $mine "key $k: type encoding pexpiretime digest"
    }
    assert_equal [dict size $meta] [dict size [rdbdata_meta $c]]
}

test "This server's snapshot loads into redis-server with the same data" {
    if {$ref eq ""} { skip_test "no reference server" }
    r $c FLUSHALL
    rdbdata_populate $c
    set digest [r $c DEBUG DIGEST]
    set meta [rdbdata_meta $c]
    r $c SAVE
    set rs [start_server -binary $ref]
    set rs [restart_on $rs [read_bytes [dump_path $srv]]]
    set rc [client $rs]
    assert_equal $digest [r $rc DEBUG DIGEST]
    assert_equal $meta [rdbdata_meta $rc]
    kill_server $rs
}

test "The RDB trailer is the CRC-64 redis-check-rdb verifies" {
    if {![file executable /usr/bin/redis-check-rdb]} { skip_test "no redis-check-rdb" }
    r $c SAVE
    set out [exec /usr/bin/redis-check-rdb [dump_path $srv]]
    assert_match "*Checksum OK*RDB looks OK*" $out
}

# ---- old encodings: one file, loaded by both servers ----

set big_hash_zl {}
for {set i 0} {$i < 600} {incr i} { lappend big_hash_zl "f$i" "v$i" }
set big_zset_zl {}
for {set i 0} {$i < 150} {incr i} { lappend big_zset_zl "m$i" [list int $i] }
set legacy [rdb_file 9 [join [list \
    [binary format c 0xfe][rdb_len 0] \
    [rdb_key 0 s:plain [rdb_str hello]] \
    [rdb_key 0 s:int8 [binary format cc 0xC0 -7]] \
    [rdb_key 0 s:int16 [binary format cs 0xC1 -30000]] \
    [rdb_key 0 s:int32 [binary format ci 0xC2 2000000000]] \
    "[binary format c 0xfc][binary format w 4102444800000][rdb_key 0 s:ttl [rdb_str later]]" \
    "[binary format c 0xfd][binary format i 1000][rdb_key 0 s:expired [rdb_str gone]]" \
    [rdb_key 1 l:plain "[rdb_len 3][rdb_str a][rdb_str b][rdb_str c]"] \
    [rdb_key 10 l:ziplist [rdb_str [ziplist [list x {int 0} {int 12} {int 100} {int -2000} {int 100000} {int 5000000} {int 9000000000} [string repeat y 80] z]]]] \
    [rdb_key 14 l:quicklist "[rdb_len 2][rdb_str [ziplist {a b c}]][rdb_str [ziplist {{int 1} {int 2}}]]"] \
    [rdb_key 2 set:plain "[rdb_len 3][rdb_str 1][rdb_str 2][rdb_str 3]"] \
    [rdb_key 2 set:strings "[rdb_len 2][rdb_str a][rdb_str 5]"] \
    [rdb_key 11 set:intset [rdb_str [binary format iisss 2 3 1 2 3]]] \
    [rdb_key 3 z:text "[rdb_len 4][rdb_str a][rdb_str 1.5][rdb_str b][binary format c 254][rdb_str c][binary format c 255][rdb_str d][rdb_str -3]"] \
    [rdb_key 12 z:ziplist [rdb_str [ziplist {a {int 1} b 2.5 c {int 30}}]]] \
    [rdb_key 12 z:ziplist-big [rdb_str [ziplist $big_zset_zl]]] \
    [rdb_key 4 h:plain "[rdb_len 2][rdb_str f][rdb_str v][rdb_str g][rdb_str 1]"] \
    [rdb_key 13 h:ziplist [rdb_str [ziplist {f1 v1 f2 {int 2}}]]] \
    [rdb_key 13 h:ziplist-big [rdb_str [ziplist $big_hash_zl]]] \
    [rdb_key 13 h:ziplist-long [rdb_str [ziplist [list f [string repeat L 100]]]]] \
    [rdb_key 9 h:zipmap [rdb_str [zipmap {name cairn kind server}]]] \
    [rdb_key 9 h:zipmap-long [rdb_str [zipmap [list f [string repeat Z 80]]]]] \
    [rdb_key 12 z:ziplist-long [rdb_str [ziplist [list [string repeat M 90] {int 1}]]]] \
    [rdb_key 3 z:text-long "[rdb_len 1][rdb_str [string repeat T 90]][rdb_str 2]"] \
    [binary format c 0xfe][rdb_len 2] \
    [rdb_key 0 db2:s [rdb_str two]] \
    ] ""]]

test "Files with ziplists, zipmaps and text scores load as redis-server loads them" {
    set srv [restart_on $srv $legacy]
    set c [client $srv]
    set meta [rdbdata_meta_all $c]
    assert_equal {string embstr 4102444800000} [lrange [dict get $meta 0:s:ttl] 0 2]
    assert_equal 0 [dict exists $meta 0:s:expired]
    assert_equal {a b c} [r $c LRANGE l:plain 0 -1]
    assert_equal [list x 0 12 100 -2000 100000 5000000 9000000000 [string repeat y 80] z] [r $c LRANGE l:ziplist 0 -1]
    assert_equal {a b c 1 2} [r $c LRANGE l:quicklist 0 -1]
    assert_equal {c -inf d -3 a 1.5 b inf} [r $c ZRANGE z:text 0 -1 WITHSCORES]
    assert_equal listpack [r $c OBJECT ENCODING z:ziplist] z:ziplist
    assert_equal skiplist [r $c OBJECT ENCODING z:ziplist-big] z:ziplist-big
    assert_equal hashtable [r $c OBJECT ENCODING h:ziplist-big] h:ziplist-big
    assert_equal hashtable [r $c OBJECT ENCODING h:zipmap-long] h:zipmap-long
    if {$is_cairn} {
        # Redis 7.0.15 ignores the value-length limit for these two.
        assert_equal hashtable [r $c OBJECT ENCODING h:ziplist-long] h:ziplist-long
        assert_equal skiplist [r $c OBJECT ENCODING z:ziplist-long] z:ziplist-long
    }
    assert_equal {name cairn kind server} [r $c HGETALL h:zipmap]
    assert_equal listpack [r $c OBJECT ENCODING h:zipmap] h:zipmap
    assert_equal intset [r $c OBJECT ENCODING set:plain] set:plain
    assert_equal hashtable [r $c OBJECT ENCODING set:strings] set:strings
    if {$ref ne ""} {
        set rs [start_server -binary $ref]
        set rs [restart_on $rs $legacy]
        set rc [client $rs]
        assert_equal [r $rc DEBUG DIGEST] [r $c DEBUG DIGEST]
        set rmeta [rdbdata_meta_all $rc]
        set differ {0:h:ziplist-long 0:z:ziplist-long}
        dict for {k v} $rmeta {
            set mine [dict get $meta $k]
            if {$k in $differ} {
                set v [lreplace $v 1 1 -]
                set mine [lreplace $mine 1 1 -]
            }
            assert_equal $v $mine "key $k: type encoding pexpiretime digest"
        }
        assert_equal [dict size $rmeta] [dict size $meta]
        kill_server $rs
    }
}

test "Redis 7.2 files (version 11, listpack sets) load into intsets and hashtables" -tags cairn-only {
    if {!$is_cairn} { skip_test "redis-server 7.0 reads versions up to 10" }
    set members {}
    for {set i 0} {$i < 600} {incr i} { lappend members $i }
    set v11 [rdb_file 11 [join [list \
        [rdb_key 20 set:lp-ints [rdb_str [listpack {1 2 3 100}]]] \
        [rdb_key 20 set:lp-strings [rdb_str [listpack {a b 7}]]] \
        [rdb_key 20 set:lp-many [rdb_str [listpack $members]]] \
        [rdb_key 16 h:lp [rdb_str [listpack {f v}]]] \
        ] ""]]
    set srv [restart_on $srv $v11]
    set c [client $srv]
    assert_equal intset [r $c OBJECT ENCODING set:lp-ints] set:lp-ints
    assert_equal {1 2 3 100} [r $c SMEMBERS set:lp-ints]
    assert_equal hashtable [r $c OBJECT ENCODING set:lp-strings] set:lp-strings
    assert_equal {7 a b} [lsort [r $c SMEMBERS set:lp-strings]]
    assert_equal hashtable [r $c OBJECT ENCODING set:lp-many] set:lp-many
    assert_equal 600 [r $c SCARD set:lp-many]
    assert_equal v [r $c HGET h:lp f]
}

test "Duplicates and broken blobs in old encodings are refused" -tags cairn-only {
    if {!$is_cairn} { skip_test "messages are cairn's" }
    foreach {what body pattern} [list \
        "duplicate hash field" [rdb_key 13 h [rdb_str [ziplist {f 1 f 2}]]] "*Duplicate hash fields*" \
        "odd hash ziplist" [rdb_key 13 h [rdb_str [ziplist {f 1 g}]]] "*odd number*" \
        "duplicate set member" [rdb_key 2 s "[rdb_len 2][rdb_str a][rdb_str a]"] "*Duplicate set members*" \
        "bad ziplist bytes" [rdb_key 10 l [rdb_str [string replace [ziplist {a b c}] 0 0 \x05]]] "*ziplist integrity*" \
        "bad intset" [rdb_key 11 s [rdb_str [binary format iiss 2 3 1 2]]] "*Intset integrity*" \
        "unsorted intset" [rdb_key 11 s [rdb_str [binary format iisss 2 3 3 2 1]]] "*Intset integrity*" \
        "zipmap overrun" [rdb_key 9 h [rdb_str "\x01\x05ab\xff"]] "*zipmap integrity*" \
        "duplicate zset member" [rdb_key 3 z "[rdb_len 2][rdb_str a][rdb_str 1][rdb_str a][rdb_str 2]"] "*Duplicate zset*" \
        "NaN score" [rdb_key 3 z "[rdb_len 1][rdb_str a][binary format c 253]"] "*NAN*" \
        "duplicate key" "[rdb_key 0 k [rdb_str 1]][rdb_key 0 k [rdb_str 2]]" "*Duplicate key*" \
        "bad database" "[binary format c 0xfe][rdb_len 99]" "*databases*" \
        ] {
        set dir [file join $::cairn(tmp) "bad-[incr ::badseq]"]
        file mkdir $dir
        write_bytes [file join $dir dump.rdb] [rdb_file 9 $body]
        set code 0
        if {[catch {exec timeout 20 $::cairn(server) --port [::cairn_h::find_port] --dir $dir \
                --save "" --logfile [file join $dir log]} out opts]} {
            set code [lindex [dict get $opts -errorcode] 2]
        }
        if {[string match *Sanitizer* $out] || [string match "*runtime error*" $out]} {
            set code "sanitizer: [string range $out 0 300]"
        }
        assert_equal 1 $code "exit status for $what"
        assert_match "$pattern*at offset*" [read_bytes [file join $dir log]] $what
    }
}
set ::badseq 0

finish
