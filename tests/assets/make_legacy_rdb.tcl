# make_legacy_rdb.tcl -- how the committed snapshots in this directory were
# made (see README.md). Run from the repository root:
#
#   tclsh tests/assets/make_legacy_rdb.tcl
#
# The four hand-built files (RDB versions 6 to 9, the formats of Redis 2.8,
# 3.2, 4.0 and 5.0) are assembled byte by byte with tests/helpers/rdbgen.tcl
# and closed with a real CRC-64; redis-7.0.rdb is written by the installed
# redis-server 7.0 (version 10). The test (tests/integration/rdb_legacy.tcl)
# reads the committed files, not this script's output: regenerating must
# leave them byte-identical except redis-7.0.rdb's ctime/used-mem AUX
# fields and its checksum.
set here [file dirname [file normalize [info script]]]
source [file join $here .. helpers rdbgen.tcl]

# CRC-64/Jones, reflected, as the RDB trailer uses (bitwise; files are small).
proc crc64 {data} {
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {$crc ^ $b}]
        for {set k 0} {$k < 8} {incr k} {
            set crc [expr {($crc & 1) ? (($crc >> 1) ^ 0x95ac9329ac4bc9b5) : ($crc >> 1)}]
        }
    }
    return $crc
}

# rdb_file's header, body and EOF, then the real checksum (little-endian).
proc rdb_file_crc {version body} {
    set out [string range [rdb_file $version $body] 0 end-8]
    set crc [crc64 $out]
    return "$out[binary format ii [expr {$crc & 0xffffffff}] [expr {($crc >> 32) & 0xffffffff}]]"
}

proc op_selectdb {n} { return "\xfe[rdb_len $n]" }
proc op_resizedb {keys expires} { return "\xfb[rdb_len $keys][rdb_len $expires]" }
proc op_aux {k v} { return "\xfa[rdb_str $k][rdb_str $v]" }
proc op_expire_s {secs} { return "\xfd[binary format i $secs]" }
proc op_expire_ms {ms} { return "\xfc[binary format w $ms]" }
proc op_idle {secs} { return "\xf8[rdb_len $secs]" }
proc op_freq {n} { return "\xf9[binary format c $n]" }
# An intset blob: encoding width in bytes (2, 4, 8), sorted values.
proc intset {width values} {
    set f [dict get {2 s 4 i 8 w} $width]
    return "[binary format ii $width [llength $values]][binary format $f* $values]"
}
# A set or zset member list / hash pairs as plain RDB strings.
proc rdb_strs {items} {
    set out [rdb_len [expr {[llength $items]}]]
    foreach s $items { append out [rdb_str $s] }
    return $out
}
proc rdb_pairs {items} {
    set out [rdb_len [expr {[llength $items] / 2}]]
    foreach s $items { append out [rdb_str $s] }
    return $out
}

# 2100-01-01T00:00:00Z: far enough ahead that the keys never expire. The
# seconds opcode holds a signed 32-bit time (Redis reads it as int32_t), so
# its key gets 2038-01-01T00:00:00Z instead.
set t2100 4102444800
set t2038 2145916800

# ---- RDB 6 (Redis 2.6/2.8): no AUX or RESIZEDB; zipmap, ziplist and
# intset blobs, text scores, seconds and milliseconds expire times.
set v6 [join [list \
    [op_selectdb 0] \
    [rdb_key 0 s:plain [rdb_str hello]] \
    [rdb_key 0 s:int8 "\xc0\x64"] \
    [rdb_key 0 s:int16 "\xc1[binary format s -1000]"] \
    [rdb_key 0 s:int32 "\xc2[binary format i 100000]"] \
    [rdb_key 0 s:lzf "\xc3\x07\x3c\x02abc\xe0\x30\x02"] \
    "[op_expire_s $t2038][rdb_key 0 s:expire-sec [rdb_str soon]]" \
    "[op_expire_ms [expr {$t2100 * 1000 + 123}]][rdb_key 0 s:expire-ms [rdb_str later]]" \
    [rdb_key 1 l:linked [rdb_strs {a b 12}]] \
    [rdb_key 10 l:ziplist [rdb_str [ziplist {x {int 7} {int -3} {int 300} yy}]]] \
    [rdb_key 2 set:plain [rdb_strs {m1 m2}]] \
    [rdb_key 11 set:intset [rdb_str [intset 2 {-5 3 300}]]] \
    [rdb_key 3 z:text "[rdb_len 3][rdb_str a]\x031.5[rdb_str b]\xff[rdb_str c]\x0210"] \
    [rdb_key 12 z:ziplist [rdb_str [ziplist {x {int 1} y 2.5}]]] \
    [rdb_key 4 h:plain [rdb_pairs {f1 v1 f2 v2}]] \
    [rdb_key 9 h:zipmap [rdb_str [zipmap {name cairn ver 6}]]] \
    [rdb_key 13 h:ziplist [rdb_str [ziplist {a {int 1} b two}]]] \
    [op_selectdb 2] \
    [rdb_key 0 db2:key [rdb_str x]] \
] ""]

# ---- RDB 7 (Redis 3.2): AUX fields, RESIZEDB, quicklists of ziplists.
set v7 [join [list \
    [op_aux redis-ver 3.2.13] [op_aux redis-bits 64] [op_aux ctime 1500000000] [op_aux used-mem 1000000] \
    [op_selectdb 0] [op_resizedb 4 1] \
    [rdb_key 14 l:quicklist "[rdb_len 2][rdb_str [ziplist {a b c}]][rdb_str [ziplist {{int 1} {int 2}}]]"] \
    "[op_expire_ms [expr {$t2100 * 1000}]][rdb_key 13 h:ziplist [rdb_str [ziplist {f1 v1 f2 {int 2}}]]]" \
    [rdb_key 12 z:ziplist [rdb_str [ziplist {a {int 1} b 2.5 c {int 30}}]]] \
    [rdb_key 11 set:intset [rdb_str [intset 4 {-70000 70000}]]] \
] ""]

# ---- RDB 8 (Redis 4.0): binary scores (ZSET_2), IDLE and FREQ opcodes,
# a 64-bit intset, a ziplist entry longer than 63 bytes (14-bit length).
set long [string repeat L 100]
set v8 [join [list \
    [op_aux redis-ver 4.0.14] [op_aux redis-bits 64] [op_aux aof-preamble 0] \
    [op_selectdb 0] [op_resizedb 4 0] \
    [rdb_key 5 z:skiplist "[rdb_len 2][rdb_str a][binary format q 1.25][rdb_str b][binary format q -2.0]"] \
    "[op_idle 300][rdb_key 14 l:quicklist "[rdb_len 1][rdb_str [ziplist [list short $long]]]"]" \
    "[op_freq 42][rdb_key 11 set:intset64 [rdb_str [intset 8 {-1 5000000000}]]]" \
    [rdb_key 0 s:plain [rdb_str v8]] \
] ""]

# ---- RDB 9 (Redis 5.0): a 32-bit and a 64-bit length prefix, ziplist
# hashes and sorted sets, a quicklist, and a second database.
set v9 [join [list \
    [op_aux redis-ver 5.0.14] [op_aux redis-bits 64] \
    [op_selectdb 0] [op_resizedb 3 1] \
    [rdb_key 0 s:len32 "\x80[binary format I 3]abc"] \
    [rdb_key 0 s:len64 "\x81[binary format W 3]xyz"] \
    "[op_expire_ms [expr {$t2100 * 1000 + 999}]][rdb_key 13 h:ziplist [rdb_str [ziplist {k {int -100000} k2 {int 9000000000}}]]]" \
    [op_selectdb 5] [op_resizedb 1 0] \
    [rdb_key 12 z:ziplist [rdb_str [ziplist {m {int -1} n 3.75}]]] \
] ""]

foreach {name version body} [list v6-redis2.8.rdb 6 $v6 v7-redis3.2.rdb 7 $v7 v8-redis4.0.rdb 8 $v8 v9-redis5.0.rdb 9 $v9] {
    set f [open [file join $here $name] wb]
    puts -nonewline $f [rdb_file_crc $version $body]
    close $f
    puts "wrote $name"
}

# ---- RDB 10, written by redis-server 7.0 itself: every type and
# encoding it has, expire times, two databases.
if {[file executable /usr/bin/redis-server]} {
    set ::cairn(server) /usr/bin/redis-server
    source [file join $here .. helpers harness.tcl]
    set srv [start_server -binary /usr/bin/redis-server]
    set c [client $srv]
    r $c SET s:int 12345
    r $c SET s:emb "hello world"
    r $c SET s:raw [string repeat "abcdefghij" 6]
    r $c SET s:lzf [string repeat "compressible " 20]
    r $c SET s:ttl v PXAT [expr {$t2100 * 1000 + 42}]
    r $c RPUSH l:small a b 1 -2
    for {set i 0} {$i < 200} {incr i} { r $c RPUSH l:big "element-$i-[string repeat e 40]" }
    r $c HSET h:lp f1 v1 f2 2
    for {set i 0} {$i < 600} {incr i} { r $c HSET h:ht "f$i" "v$i" }
    r $c SADD set:int 1 2 3 -4 4294967296
    for {set i 0} {$i < 20} {incr i} { r $c SADD set:ht "m$i" }
    r $c ZADD z:lp 1 a 2.5 b -3 c
    for {set i 0} {$i < 130} {incr i} { r $c ZADD z:sl [expr {$i * 0.5}] "m$i" }
    r $c PEXPIREAT h:lp [expr {$t2100 * 1000}]
    r $c SELECT 3
    r $c SET db3:k v
    r $c SAVE
    file copy -force [file join [dict get $srv dir] dump.rdb] [file join $here redis-7.0.rdb]
    kill_server $srv
    puts "wrote redis-7.0.rdb"
}
