# rdbdata.tcl -- a dataset with every type in every encoding Redis 7.0 has
# (and expire times, several databases), for the snapshot tests, plus a
# per-key summary to compare two servers or a server before and after a
# reload.
#
#   rdbdata_populate $c    fill the server (leaves database 0 selected)
#   rdbdata_meta $c        dict "db:key" -> {type encoding pexpiretime digest}

proc rdbdata_populate {c} {
    # strings: int, embstr, raw compressible (LZF), raw incompressible
    r $c SET str:int 12345
    r $c SET str:neg -98765
    r $c SET str:bigint 12345678901234
    r $c SET str:zero-lead 007
    r $c SET str:embstr hello
    r $c SET str:raw [string repeat abcdefgh 100]
    set noise ""
    for {set i 0} {$i < 300} {incr i} { append noise [format %c [expr {($i * 7919 + 13) % 256}]] }
    r $c SET str:binary $noise
    r $c SET str:empty ""
    r $c SET str:ttl v EX 100000
    # lists: one listpack node, many nodes, a plain node
    r $c RPUSH list:small a b c 1 2 3 -4 [string repeat z 70]
    for {set i 0} {$i < 2000} {incr i} { lappend big "item-$i" }
    r $c RPUSH list:big {*}$big
    r $c RPUSH list:ints {*}[lrange {1 22 333 4444 55555 666666 7777777 88888888 999999999 12345678901} 0 end]
    r $c DEBUG QUICKLIST-PACKED-THRESHOLD 100
    r $c RPUSH list:plain small [string repeat P 300] small2
    r $c DEBUG QUICKLIST-PACKED-THRESHOLD 0
    r $c RPUSH list:ttl x y
    r $c PEXPIRE list:ttl 50000000
    # sets: 16/32/64-bit intsets, hashtable by content and by size
    r $c SADD set:int16 1 2 3 -5
    r $c SADD set:int32 70000 -5 3
    r $c SADD set:int64 5000000000 -1 2
    r $c SADD set:strings a b c hello
    set many {}
    for {set i 0} {$i < 600} {incr i} { lappend many $i }
    r $c SADD set:bigints {*}$many
    # sorted sets: listpack, skiplist by size and by member length, odd scores
    r $c ZADD zset:small 1 a 2.5 b -3 c 1e20 d inf e -inf f 0 g
    set zs {}
    for {set i 0} {$i < 200} {incr i} { lappend zs [expr {$i * 1.5}] "m$i" }
    r $c ZADD zset:big {*}$zs
    r $c ZADD zset:longmember 1 [string repeat L 100] 2 short
    r $c ZADD zset:ttl 1 x
    r $c EXPIRE zset:ttl 90000
    # hashes: listpack, hashtable by size and by value length
    r $c HSET hash:small f1 v1 f2 2 f3 [string repeat v 40]
    set hs {}
    for {set i 0} {$i < 300} {incr i} { lappend hs "field$i" "value$i" }
    r $c HSET hash:big {*}$hs
    r $c HSET hash:longvalue f [string repeat V 100] g 1
    # other databases
    r $c SELECT 5
    r $c SET db5:str five
    r $c SADD db5:set x y
    r $c SELECT 15
    r $c ZADD db15:zset 3 three
    r $c SELECT 0
}

proc rdbdata_meta {c {dbs {0 5 15}}} {
    set out {}
    foreach db $dbs {
        r $c SELECT $db
        foreach k [lsort [r $c KEYS *]] {
            dict set out "$db:$k" [list [r $c TYPE $k] [r $c OBJECT ENCODING $k] \
                    [r $c PEXPIRETIME $k] [r $c DEBUG DIGEST-VALUE $k]]
        }
    }
    r $c SELECT 0
    return $out
}

# Same summary for every key of every database.
proc rdbdata_meta_all {c} {
    return [rdbdata_meta $c {0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15}]
}
