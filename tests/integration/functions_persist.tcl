# functions_persist.tcl -- function libraries outliving the process and
# reaching other servers: SAVE and restart, the AOF (an RDB-preamble base,
# a commands-only base written as FUNCTION LOAD, and FUNCTION commands in
# the incremental file), DEBUG RELOAD, replicas (the stream and a full
# sync), a promoted replica, and the AOF read by redis-server.

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

proc lib {name fn ret} {
    return "#!lua name=$name\nredis.register_function('$fn', function(keys, args) return $ret end)"
}
proc libnames {c} { return [lsort [lmap l [r $c FUNCTION LIST] {lindex $l 1}]] }
proc aofdir {srv} { return [file join [dict get $srv dir] appendonlydir] }
proc with_binary {srv bin} {
    dict set srv binary $bin
    return $srv
}

test "SAVE and a restart keep the libraries; DEBUG RELOAD with and without flush" {
    set srv [start_server]
    set c [client $srv]
    r $c FUNCTION LOAD [lib a fa 1]
    r $c FUNCTION LOAD [lib b fb "'b'"]
    r $c SET k v
    r $c SAVE
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {a b} [libnames $c]
    assert_equal {1 b} [list [r $c FCALL fa 0] [r $c FCALL fb 0]]
    assert_equal OK [r $c DEBUG RELOAD]
    assert_equal {a b} [libnames $c]
    # NOFLUSH loads over libraries that exist: refused, as by Redis; MERGE replaces.
    assert_error "*Error trying to load the RDB*" {r $c DEBUG RELOAD NOFLUSH}
    assert_equal OK [r $c DEBUG RELOAD NOFLUSH MERGE]
    assert_equal {a b} [libnames $c]
    kill_server $srv
}

test "the AOF keeps FUNCTION LOAD/DELETE/RESTORE, before and after a rewrite" {
    foreach preamble {yes no} {
        set srv [start_server -config [list appendonly yes aof-use-rdb-preamble $preamble]]
        set c [client $srv]
        r $c FUNCTION LOAD [lib a fa 1]
        r $c FUNCTION LOAD [lib gone fg 0]
        r $c FUNCTION DELETE gone
        r $c FUNCTION RESTORE [r $c FUNCTION DUMP] REPLACE
        r $c FUNCTION LOAD REPLACE [lib a fa 2]
        set srv [restart_server $srv]
        set c [client $srv]
        assert_equal {a} [libnames $c] "preamble $preamble, incr file"
        assert_equal 2 [r $c FCALL fa 0]
        r $c FUNCTION LOAD [lib b fb 3]
        r $c BGREWRITEAOF
        wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] >= 1}
        set base [glob -directory [aofdir $srv] *.base.*]
        if {$preamble eq "no"} {
            assert_match "*FUNCTION*LOAD*#!lua name=*" [read_bytes $base] "commands-only base"
        }
        r $c FUNCTION DELETE a
        set srv [restart_server $srv]
        set c [client $srv]
        assert_equal {b} [libnames $c] "preamble $preamble, after rewrite"
        assert_equal 3 [r $c FCALL fb 0]
        if {$::cairn(reference) ne ""} {
            kill_server $srv
            set rs [restart_server [with_binary $srv $::cairn(reference)]]
            set rc [client $rs]
            assert_equal {b} [libnames $rc] "redis-server reads cairn's AOF (preamble $preamble)"
            assert_equal 3 [r $rc FCALL fb 0]
            kill_server $rs
        } else {
            kill_server $srv
        }
    }
}

test "a replica gets the libraries at full sync and by the stream, and keeps them when promoted" {
    set m [start_server]
    set mc [client $m]
    r $mc FUNCTION LOAD [lib before fbefore "'x'"]
    set rep [start_server]
    set repc [client $rep]
    # The replica's own libraries go at the full sync.
    r $repc FUNCTION LOAD [lib mine fmine 0]
    repl_attach $repc $m
    repl_wait_caught_up $mc $repc
    assert_equal {before} [libnames $repc]
    r $mc FUNCTION LOAD [lib after fafter "redis.call('incr', keys\[1\])"]
    r $mc FCALL fafter 1 cnt
    r $mc FCALL fafter 1 cnt
    repl_wait_caught_up $mc $repc
    assert_equal {after before} [libnames $repc]
    assert_equal 2 [r $repc GET cnt]
    # A read-only replica refuses a function that may write, runs a no-writes one.
    assert_error "READONLY You can't write against a read only replica." {r $repc FCALL fafter 1 cnt}
    r $mc FUNCTION LOAD [lib ro fro "'ro'"]
    assert_error "READONLY You can't write against a read only replica." {r $repc FCALL fro 0}
    r $mc FUNCTION DELETE before
    repl_wait_caught_up $mc $repc
    assert_equal {after ro} [libnames $repc]
    # Failover by hand: the primary goes, the replica is promoted and serves FCALL.
    kill_server $m
    r $repc REPLICAOF NO ONE
    assert_equal 3 [r $repc FCALL fafter 1 cnt]
    # Its own snapshot keeps what it got from the primary.
    r $repc SAVE
    set rep [restart_server $rep]
    set repc [client $rep]
    assert_equal {after ro} [libnames $repc]
    kill_server $rep
}

test "a redis-server replica of cairn, and a cairn replica of redis-server, get the libraries" {
    if {$::cairn(reference) eq ""} { skip_test "no reference server" }
    set m [start_server]
    set mc [client $m]
    r $mc FUNCTION LOAD [lib c1 fc1 11]
    set rs [start_server -binary $::cairn(reference)]
    set rsc [client $rs]
    repl_attach $rsc $m
    r $mc FUNCTION LOAD "#!lua name=c2\nredis.register_function{function_name='fc2r', callback=function() return 12 end, flags={'no-writes'}}"
    repl_wait_caught_up $mc $rsc
    assert_equal {c1 c2} [libnames $rsc]
    assert_equal 12 [r $rsc FCALL_RO fc2r 0]
    kill_server $rs
    set rm [start_server -binary $::cairn(reference)]
    set rmc [client $rm]
    r $rmc FUNCTION LOAD [lib r1 fr1 21]
    r $mc REPLICAOF NO ONE
    repl_attach $mc $rm
    r $rmc FUNCTION LOAD "#!lua name=r2\nredis.register_function{function_name='fr2', callback=function() return 22 end, flags={'no-writes'}}"
    repl_wait_caught_up $rmc $mc
    assert_equal {r1 r2} [libnames $mc]
    assert_equal 22 [r $mc FCALL fr2 0] "a no-writes function runs on a read-only replica"
    kill_server $rm
    kill_server $m
}

finish
