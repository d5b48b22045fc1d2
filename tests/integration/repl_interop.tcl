# repl_interop.tcl -- replication between the server under test and
# Debian's redis-server 7.0 in both directions: full sync (disk and
# diskless) of every type and expire time with writes made during the
# snapshot, the stream afterwards, datasets compared key by key; WAIT
# counting a genuine replica; partial resyncs across the two after a cut
# link, and a promoted Redis replica that the server follows partially.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

# Writes of every kind while the primary's snapshot is being taken (the
# primary runs with rdb-key-save-delay), then a few after.
proc write_load {mc n} {
    for {set i 0} {$i < $n} {incr i} {
        r $mc INCR load:counter
        r $mc RPUSH load:list $i
        r $mc HSET load:hash f[expr {$i % 50}] $i
        r $mc ZADD load:zset $i m$i
        r $mc SADD load:set [expr {$i % 70}]
        r $mc SET load:ttl:$i v PX 5000000
        if {$i % 10 == 0} { r $mc DEL load:ttl:[expr {$i - 10}] }
    }
}

proc sync_between {pbin rbin mode} {
    set diskless [expr {$mode eq "diskless" ? "yes" : "no"}]
    set p [start_server -binary $pbin -config [list repl-diskless-sync $diskless repl-diskless-sync-delay 0 rdb-key-save-delay 100]]
    set s [start_server -binary $rbin]
    set pc [client $p]
    set sc [client $s]
    rdbdata_populate $pc
    r $pc DEBUG POPULATE 3000 pop 20
    r $sc REPLICAOF 127.0.0.1 [dict get $p port]
    write_load $pc 200
    repl_wait_link $sc 30000
    write_load $pc 50
    r $pc SELECT 5
    r $pc LPUSH db5:after x y z
    r $pc SELECT 0
    repl_wait_caught_up $pc $sc
    assert_equal [r $pc DEBUG DIGEST] [r $sc DEBUG DIGEST] "DEBUG DIGEST"
    set a [rdbdata_meta_all $pc]
    set b [rdbdata_meta_all $sc]
    assert_equal [dict size $a] [dict size $b] "key count"
    dict for {k v} $a {
        # the encoding of a key written through the stream is the replica's
        # own choice; type, expire time and content must be the same
        set w [dict get $b $k]
        assert_equal [lreplace $v 1 1] [lreplace $w 1 1] "key $k: type pexpiretime digest"
    }
    assert_equal 1 [r $pc WAIT 1 5000]
    kill_server $p
    kill_server $s
}

foreach mode {disk diskless} {
    test "redis-server as primary, this server as replica ($mode sync under writes)" {
        if {$ref eq ""} { skip_test "no redis-server" }
        sync_between $ref $::cairn(server) $mode
    }
    test "This server as primary, redis-server as replica ($mode sync under writes)" {
        if {$ref eq ""} { skip_test "no redis-server" }
        sync_between $::cairn(server) $ref $mode
    }
}

test "Partial resyncs across the two after cut links, and after a promotion" {
    if {$ref eq ""} { skip_test "no redis-server" }
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set rs [start_server -binary $ref]
    set cs [start_server]
    set pc [client $p]
    set rsc [client $rs]
    set csc [client $cs]
    r $pc SET a 1
    repl_attach $rsc $p
    repl_attach $csc $p
    repl_wait_caught_up $pc $rsc
    # a genuine replica whose link is cut continues partially
    set ok [repl_stat $pc sync_partial_ok]
    r $rsc CLIENT KILL TYPE master
    r $pc SET b 2
    repl_wait_link $rsc
    repl_wait_caught_up $pc $rsc
    assert_equal [expr {$ok + 1}] [repl_stat $pc sync_partial_ok]
    assert_equal 2 [r $rsc GET b]
    # the genuine replica is promoted; this server follows it partially
    repl_wait_caught_up $pc $csc
    kill_server $p
    r $rsc REPLICAOF NO ONE
    repl_attach $csc $rs
    r $rsc SET c 3
    repl_wait_caught_up $rsc $csc
    assert_equal 1 [repl_stat $rsc sync_partial_ok]
    assert_equal 0 [repl_stat $rsc sync_full]
    assert_equal [r $rsc DEBUG DIGEST] [r $csc DEBUG DIGEST]
    # and the other way: this server promoted, the genuine one follows it
    set ok [repl_stat $csc sync_partial_ok]
    r $csc REPLICAOF NO ONE
    repl_attach $rsc $cs
    r $csc SET d 4
    repl_wait_caught_up $csc $rsc
    assert_equal [expr {$ok + 1}] [repl_stat $csc sync_partial_ok]
    assert_equal 4 [r $rsc GET d]
    assert_equal [r $rsc DEBUG DIGEST] [r $csc DEBUG DIGEST]
    kill_server $rs
    kill_server $cs
}

finish
