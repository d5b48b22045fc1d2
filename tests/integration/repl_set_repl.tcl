# repl_set_repl.tcl -- redis.set_repl: a script's writes for the AOF only,
# the replicas only, or nobody. A primary with appendonly yes and a
# replica, for the server under test and for redis-server side by side:
# which keys the replica gets, the primary's AOF bytes (and what a restart
# from that AOF alone holds), the replication offsets (which count only
# what replicas receive: the AOF-only writes are not in them, the empty
# MULTI/EXEC Redis 7.0 still sends a replica are), and a partial resync
# after a cut link with the offsets those scripts left.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

proc incr_aof {srv} {
    set files [glob -nocomplain -directory [file join [dict get $srv dir] appendonlydir] *.incr.aof]
    return [read_bytes [lindex [lsort $files] end]]
}

proc sorted_keys {c db} {
    r $c SELECT $db
    set k [lsort [r $c KEYS *]]
    r $c SELECT 0
    return $k
}

# The scripts, each with the replication offset it moved the primary by.
set ::scripts {
    aof_two {redis.set_repl(redis.REPL_AOF) redis.call('set','aof1','x') redis.call('set','aof2','x')}
    replica_one {redis.set_repl(redis.REPL_REPLICA) redis.call('set','rep1','x')}
    slave_one {redis.set_repl(redis.REPL_SLAVE) redis.call('set','rep2','x')}
    none_then_all {redis.set_repl(redis.REPL_NONE) redis.call('set','none1','x')
        redis.set_repl(redis.REPL_ALL) redis.call('set','all1','x')}
    none_only {redis.set_repl(redis.REPL_NONE) redis.call('set','none2','x') redis.call('incr','none3')}
    mixed {redis.call('set','mix1','x') redis.set_repl(redis.REPL_AOF) redis.call('select', 3)
        redis.call('set','mix2','x') redis.set_repl(redis.REPL_REPLICA) redis.call('set','mix3','x')}
    aof_then_db3 {redis.set_repl(redis.REPL_AOF) redis.call('select', 3) redis.call('set','a3','x')}
}

# Run everything against binary bin; a dict of what was seen.
proc set_repl_run {bin} {
    set p [start_server -binary $bin -config {appendonly yes appendfsync always repl-diskless-sync-delay 0 repl-ping-replica-period 3600}]
    set s [start_server -binary $bin -config {repl-ping-replica-period 3600}]
    set pc [client $p]
    set sc [client $s]
    repl_attach $sc $p
    r $pc SET base 1
    repl_wait_caught_up $pc $sc
    set out [dict create]
    foreach {name body} $::scripts {
        set before [info_field $pc master_repl_offset replication]
        r $pc EVAL $body 0
        dict set out offset:$name [expr {[info_field $pc master_repl_offset replication] - $before}]
    }
    # after the AOF-only write to db 3, the replicas still have db 3
    # selected (from mix3) and the AOF db 3 too: the next write in db 0
    # must select it again for both
    r $pc SET after 1
    repl_wait_caught_up $pc $sc
    foreach db {0 3} {
        dict set out primary:$db [sorted_keys $pc $db]
        dict set out replica:$db [sorted_keys $sc $db]
    }
    dict set out aof [incr_aof $p]
    # a cut link: the replica comes back with a partial resync from the
    # offset it counted
    set partial [repl_stat $pc sync_partial_ok]
    r $pc CLIENT KILL TYPE replica
    r $pc SET after2 1
    r $pc EVAL {redis.set_repl(redis.REPL_AOF) redis.call('set','aof3','x') redis.call('set','aof4','x')} 0
    # values past a 16 KB block: marked ranges across several blocks
    r $pc EVAL {redis.set_repl(redis.REPL_AOF) redis.call('set','bigaof',string.rep('a',100000))
        redis.set_repl(redis.REPL_REPLICA) redis.call('set','bigrep',string.rep('r',70000))
        redis.set_repl(redis.REPL_ALL) redis.call('set','bigall',string.rep('b',40000))} 0
    wait_for {[repl_stat $pc sync_partial_ok] == $partial + 1} 10000 "partial resync"
    repl_wait_caught_up $pc $sc
    dict set out full_syncs [repl_stat $pc sync_full]
    dict set out replica_after:0 [sorted_keys $sc 0]
    dict set out offsets_equal [expr {[info_field $pc master_repl_offset replication] == [info_field $sc master_repl_offset replication]}]
    # the AOF alone brings back what it was sent
    close_client $sc
    kill_server $s
    close_client $pc
    set p [restart_server $p]
    set pc [client $p]
    foreach db {0 3} { dict set out reloaded:$db [sorted_keys $pc $db] }
    close_client $pc
    kill_server $p
    return $out
}

set got [set_repl_run $::cairn(server)]

test "set_repl: the replica gets the writes meant for replicas, none of the others" {
    assert_equal {after all1 base mix1 rep1 rep2} [dict get $got replica:0]
    assert_equal {mix3} [dict get $got replica:3]
    assert_equal {after all1 aof1 aof2 base mix1 none1 none2 none3 rep1 rep2} [dict get $got primary:0]
    assert_equal {a3 mix2 mix3} [dict get $got primary:3]
}

test "set_repl: the AOF gets the writes meant for it; a restart from it alone has those" {
    set aof [dict get $got aof]
    foreach k {aof1 aof2 mix1 mix2 all1 a3} { assert_match "*\$[string length $k]\r\n$k\r\n*" $aof "$k in the AOF" }
    foreach k {rep1 rep2 mix3 none1 none2 none3} { assert_equal 0 [string match "*\r\n$k\r\n*" $aof] "$k not in the AOF" }
    assert_equal {after after2 all1 aof1 aof2 aof3 aof4 base bigall bigaof mix1} [dict get $got reloaded:0]
    assert_equal {a3 mix2} [dict get $got reloaded:3]
}

test "set_repl: replication offsets count only bytes replicas receive" {
    # REPL_NONE writes: nothing; one write for the AOF only: nothing
    assert_equal 0 [dict get $got offset:none_only]
    assert_equal 0 [dict get $got offset:aof_then_db3]
    # two writes for the AOF: the replica still gets MULTI and EXEC (29 bytes)
    assert_equal [string length "*1\r\n\$5\r\nMULTI\r\n*1\r\n\$4\r\nEXEC\r\n"] [dict get $got offset:aof_two]
    assert_equal [string length [resp set rep1 x]] [dict get $got offset:replica_one]
}

test "set_repl: a partial resync after such scripts continues at the right offset" {
    assert_equal 1 [dict get $got full_syncs]
    assert_equal 1 [dict get $got offsets_equal]
    assert_equal {after after2 all1 base bigall bigrep mix1 rep1 rep2} [dict get $got replica_after:0]
}

if {$ref ne "" && $ref ne $::cairn(server)} {
    set want [set_repl_run $ref]
    test "set_repl: the same keys, AOF bytes and offsets as redis-server" {
        dict for {k v} $want {
            assert_equal $v [dict get $got $k] "$k"
        }
    }
}

finish
