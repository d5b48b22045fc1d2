# repl_failover.tcl -- FAILOVER (Redis 6.2's coordinated failover), a
# writable replica's AOF, replication directives, WAITAOF with replicas.
#
# FAILOVER: its errors word for word and in the same order as redis-server
# 7.0 (run side by side when it is installed); a primary with two replicas
# handing over to one of them: writes held while it waits (reads served,
# REPLICAOF and a second FAILOVER refused, INFO waiting-for-sync), the held
# write then refused with -READONLY, key waiters and WAIT answered
# -UNBLOCKED, the target promoted, the old primary its replica and the
# other replica following through it, every acknowledged write on all
# three, no full resync; under a pipelined write load exactly the
# acknowledged writes survive; FAILOVER ABORT; TIMEOUT without FORCE
# (aborted, the held write then runs) and with FORCE (hands over anyway);
# a target refusing the PSYNC (ACL -psync): aborted; redis-server as the
# target and as the primary handing over.
# A writable replica's local writes in its own AOF, each in its database,
# also after a rewrite (the primary's bytes go on without a SELECT).
# repl-disable-tcp-nodelay, read from the primary's socket.
# propagation-error-behavior: a read-only replica failing a command of its
# primary's stream logs it and counts it (ignore) or stops (panic-on-replicas).
# WAITAOF numreplicas: a replica with appendonly yes counts (REPLCONF ACK
# .. FACK), one with appendonly no and a redis-server 7.0 replica do not.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }
set is_cairn [string match *cairn* [file tail $::cairn(server)]]

proc fo_server {{bin ""} args} {
    if {$bin eq ""} { set bin $::cairn(server) }
    return [start_server -binary $bin -config [list repl-diskless-sync-delay 0 save "" {*}$args]]
}

# A primary (binary pbin) with one replica (sbin) streaming: {p s pc sc}.
proc fo_pair {{pbin ""} {sbin ""}} {
    set p [fo_server $pbin]
    set s [fo_server $sbin]
    set pc [client $p]
    set sc [client $s]
    repl_attach $sc $p
    repl_wait_online $pc 1
    return [list $p $s $pc $sc]
}

proc fo_state {c} { return [info_field $c master_failover_state replication] }
proc fo_role {c} { return [info_field $c role replication] }

# 1 if no reply arrived on c within ms (what did arrive stays for read_reply).
proc no_reply_within {c ms} {
    ::cairn_h::wait_readable $c $ms
    fconfigure $c -blocking 0
    set data [read $c]
    fconfigure $c -blocking 1
    append ::cairn_h::buf($c) $data
    return [expr {$data eq ""}]
}

# The reply of `r $c args`, error or not, as a string.
proc reply_of {c args} {
    catch {r $c {*}$args} res
    return $res
}

# FAILOVER's answers in three situations: no replica, one replica (port
# given), as a replica.
proc failover_errors {bin} {
    set p [fo_server $bin]
    set s [fo_server $bin]
    set pc [client $p]
    set sc [client $s]
    set sport [dict get $s port]
    set out {}
    foreach args [list {} {ABORT} {TIMEOUT 0} {TIMEOUT -1} {TIMEOUT abc} {TO} {TO 127.0.0.1 abc} \
                      {FORCE} {FORCE FORCE} {ABORT x} {TIMEOUT 10 TIMEOUT 20} {bogus} \
                      [list TO 127.0.0.1 $sport TO 127.0.0.1 $sport] [list TO 127.0.0.1 $sport]] {
        lappend out "none $args: [reply_of $pc FAILOVER {*}$args]"
    }
    repl_attach $sc $p
    repl_wait_online $pc 1
    foreach args [list {FORCE} {TIMEOUT 100 FORCE} [list TO 127.0.0.1 $sport FORCE] {TO 127.0.0.1 1} \
                      [list TO 127.0.0.2 $sport] [list TO localhost $sport] {ABORT}] {
        lappend out "one $args: [reply_of $pc FAILOVER {*}$args]"
    }
    lappend out "replica: [reply_of $sc FAILOVER]"
    lappend out "replica abort: [reply_of $sc FAILOVER ABORT]"
    kill_server $p
    kill_server $s
    return [string map [list $sport PORT] $out]
}

test "FAILOVER errors, in Redis' words and order" {
    set got [failover_errors $::cairn(server)]
    assert_equal "none : ERR FAILOVER requires connected replicas." [lindex $got 0]
    assert_equal "none ABORT: ERR No failover in progress." [lindex $got 1]
    assert_equal "none TIMEOUT 0: ERR FAILOVER timeout must be greater than 0" [lindex $got 2]
    assert_equal "none FORCE FORCE: ERR syntax error" [lindex $got 8]
    assert_match "one FORCE: ERR FAILOVER with force option requires both a timeout and target HOST and IP." [lindex $got 14]
    assert_match "one TO 127.0.0.1 1: ERR FAILOVER target HOST and PORT is not a replica." [lindex $got 17]
    assert_equal "replica: ERR FAILOVER is not valid when server is a replica." [lindex $got end-1]
    if {$::ref ne "" && $::is_cairn} {
        set want [failover_errors $::ref]
        foreach g $got w $want { assert_equal $w $g "side by side with redis-server" }
    }
}

test "FAILOVER TO a replica: writes held, then -READONLY; roles swap, the other replica follows, nothing lost" {
    set p [fo_server]
    set s1 [fo_server]
    set s2 [fo_server]
    set pc [client $p]
    set c1 [client $s1]
    set c2 [client $s2]
    repl_attach $c1 $p
    repl_attach $c2 $p
    repl_wait_online $pc 2
    set acked 0
    for {set i 0} {$i < 500} {incr i} {
        r $pc INCR counter
        r $pc RPUSH list $i
        incr acked
    }
    set full [repl_stat $pc sync_full]
    # a key waiter and a WAIT: Redis answers them -UNBLOCKED once a replica
    set bl [client $p]
    send_cmd $bl BLPOP nolist 0
    set wt [client $p]
    send_cmd $wt WAIT 5 0
    wait_for {[info_field $pc blocked_clients clients] == 2} 5000 "blocked"
    # The target is stopped: the primary must wait for it to catch up.
    ::cairn_h::signal [dict get $s1 pid] STOP
    r $pc SET before-failover 1
    assert_equal OK [r $pc FAILOVER TO 127.0.0.1 [dict get $s1 port]]
    assert_equal waiting-for-sync [fo_state $pc]
    set w [client $p]
    send_cmd $w INCR counter
    assert [no_reply_within $w 300] "the write is held while waiting"
    assert_equal $acked [r $pc GET counter] "reads are served"
    assert_error "ERR FAILOVER already in progress." {r $pc FAILOVER}
    assert_error "ERR REPLICAOF not allowed while failing over." {r $pc REPLICAOF NO ONE}
    ::cairn_h::signal [dict get $s1 pid] CONT
    wait_for {[fo_state $pc] eq "no-failover" && [fo_role $pc] eq "slave"} 10000 "old primary handed over"
    assert_error "READONLY*" {read_reply $w}
    foreach c [list $bl $wt] {
        assert_error "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)" \
            {read_reply $c}
        assert [connection_closed $c] "closed after the error"
    }
    assert_equal master [fo_role $c1]
    assert_equal [dict get $s1 port] [info_field $pc master_port replication]
    repl_wait_link $pc
    # the other replica stays the old primary's, which now follows the new one
    repl_wait_link $c2
    r $c1 INCR counter
    r $c1 SET after-failover 1
    incr acked
    wait_for {[r $c2 GET after-failover] eq "1"} 10000 "the write reached the chained replica"
    foreach c [list $pc $c1 $c2] {
        assert_equal $acked [r $c GET counter] "every acknowledged INCR"
        assert_equal 1 [r $c GET before-failover]
    }
    assert_equal [r $c1 DEBUG DIGEST] [r $pc DEBUG DIGEST]
    assert_equal [r $c1 DEBUG DIGEST] [r $c2 DEBUG DIGEST]
    assert_equal $full [repl_stat $pc sync_full] "no full resync on the old primary"
    assert_equal 0 [repl_stat $c1 sync_full] "nor on the new one"
    assert {[repl_stat $c1 sync_partial_ok] >= 1} "the old primary continued partially"
    if {$::is_cairn} {
        assert_match "*MASTER MODE enabled (failover request from*" [read_bytes [dict get $s1 log]]
    }
    kill_server $p
    kill_server $s1
    kill_server $s2
}

test "FAILOVER under a pipelined write load: exactly the acknowledged writes are on both sides" {
    lassign [fo_pair] p s pc sc
    set w [client $p]
    set n 3000
    set batch ""
    for {set i 0} {$i < $n} {incr i} { append batch [resp INCR ctr] }
    send_raw $w $batch
    assert_equal OK [r $pc FAILOVER TO 127.0.0.1 [dict get $s port] TIMEOUT 10000]
    set acked 0
    set refused 0
    for {set i 0} {$i < $n} {incr i} {
        if {[catch {read_reply $w} v]} {
            assert_match "READONLY*" $v
            incr refused
        } else {
            incr acked
            assert_equal $acked $v "acknowledged in order"
        }
    }
    wait_for {[fo_state $pc] eq "no-failover"} 10000 "failover finished"
    assert_equal master [fo_role $sc]
    repl_wait_link $pc
    r $sc SET done 1
    wait_for {[r $pc GET done] eq "1"} 10000 "the old primary follows"
    set got [r $sc GET ctr]
    if {$got eq ""} { set got 0 }
    assert_equal $acked $got "every acknowledged INCR, and only those"
    assert_equal [r $sc DEBUG DIGEST] [r $pc DEBUG DIGEST]
    assert_equal $n [expr {$acked + $refused}]
    kill_server $p
    kill_server $s
}

test "FAILOVER ABORT, TIMEOUT without FORCE (aborted, held writes run) and with FORCE" {
    lassign [fo_pair] p s pc sc
    r $pc SET k 0
    ::cairn_h::signal [dict get $s pid] STOP
    # ABORT: writes flow again
    assert_equal OK [r $pc FAILOVER]
    assert_equal waiting-for-sync [fo_state $pc]
    set w [client $p]
    send_cmd $w INCR k
    assert [no_reply_within $w 200] "the write is held"
    assert_equal OK [r $pc FAILOVER ABORT]
    assert_equal 1 [read_reply $w] "the held write ran after ABORT"
    assert_equal no-failover [fo_state $pc]
    assert_equal master [fo_role $pc]
    # TIMEOUT without FORCE: gives up by itself
    set t0 [clock milliseconds]
    assert_equal OK [r $pc FAILOVER TO 127.0.0.1 [dict get $s port] TIMEOUT 500]
    send_cmd $w INCR k
    assert_equal 2 [read_reply $w] "the held write ran once the failover timed out"
    assert_range [expr {[clock milliseconds] - $t0}] 400 5000
    assert_equal no-failover [fo_state $pc]
    assert_equal master [fo_role $pc]
    assert_match "*Replica never caught up before timeout*" [read_bytes [dict get $p log]]
    # TIMEOUT with FORCE: hands over though the target is behind
    assert_equal OK [r $pc FAILOVER TO 127.0.0.1 [dict get $s port] TIMEOUT 300 FORCE]
    wait_for {[fo_state $pc] eq "failover-in-progress"} 5000 "forced after the timeout"
    assert_equal slave [fo_role $pc]
    assert_match "*time out exceeded, failing over*" [read_bytes [dict get $p log]]
    ::cairn_h::signal [dict get $s pid] CONT
    wait_for {[fo_state $pc] eq "no-failover"} 10000 "failover finished"
    assert_error "READONLY*" {r $w INCR k}
    assert_equal master [fo_role $sc]
    repl_wait_link $pc
    r $sc SET after 1
    wait_for {[r $pc GET after] eq "1"} 10000 "the old primary follows"
    assert_equal [r $sc DEBUG DIGEST] [r $pc DEBUG DIGEST]
    kill_server $p
    kill_server $s
}

test "FAILOVER whose PSYNC the target refuses: aborted, a primary again, writes go on" {
    lassign [fo_pair] p s pc sc
    r $pc SET k 1
    r $sc ACL SETUSER default -psync
    assert_equal OK [r $pc FAILOVER TO 127.0.0.1 [dict get $s port] TIMEOUT 10000]
    wait_for {[fo_state $pc] eq "no-failover"} 10000 "failover over"
    assert_equal master [fo_role $pc]
    assert_equal slave [fo_role $sc]
    assert_match "*Failover target rejected psync request*" [read_bytes [dict get $p log]]
    r $sc ACL SETUSER default +psync
    repl_wait_online $pc 1
    r $pc SET k 2
    wait_for {[r $sc GET k] eq "2"} 10000 "the replica follows again"
    assert_equal 1 [repl_stat $pc sync_full] "only the first sync was full"
    kill_server $p
    kill_server $s
}

proc failover_between {pbin tbin} {
    lassign [fo_pair $pbin $tbin] p t pc tc
    for {set i 0} {$i < 200} {incr i} { r $pc HSET h f$i $i }
    r $pc SET k 1
    set full [repl_stat $pc sync_full]
    assert_equal OK [r $pc FAILOVER TO 127.0.0.1 [dict get $t port] TIMEOUT 10000]
    wait_for {[fo_state $pc] eq "no-failover"} 10000 "failover finished"
    assert_equal slave [fo_role $pc]
    assert_equal master [fo_role $tc]
    repl_wait_link $pc
    r $tc SET k 2
    wait_for {[r $pc GET k] eq "2"} 10000 "the old primary follows the new one"
    assert_equal 200 [r $pc HLEN h]
    assert_equal [r $pc DEBUG DIGEST] [r $tc DEBUG DIGEST]
    assert_equal $full [repl_stat $pc sync_full] "no full resync"
    assert_equal 0 [repl_stat $tc sync_full] "the old primary continued partially"
    assert_equal 1 [repl_stat $tc sync_partial_ok]
    kill_server $p
    kill_server $t
}

if {$ref ne "" && $is_cairn} {
    test "FAILOVER to a redis-server replica" {
        failover_between $::cairn(server) $::ref
    }
    test "redis-server's FAILOVER to a replica of this server" {
        failover_between $::ref $::cairn(server)
    }
} else {
    skip "FAILOVER with redis-server" "no reference server, or it is the server under test"
}

test "A writable replica's local writes go into its own AOF, each in its database, between its primary's" {
    set p [fo_server]
    set s [fo_server "" appendonly yes replica-read-only no]
    set pc [client $p]
    set sc [client $s]
    wait_for {[info_field $sc aof_rewrite_in_progress persistence] == 0} 10000 "first rewrite done"
    repl_attach $sc $p
    repl_wait_online $pc 1
    r $pc SELECT 5
    r $pc SET m1 a
    r $sc SELECT 3
    r $sc SET local1 x
    r $pc SET m2 b
    # a rewrite (after the one the full sync started): the primary's bytes
    # then go on in db 5 with no SELECT of theirs
    wait_for {[info_field $sc aof_rewrite_in_progress persistence] == 0 &&
              [info_field $sc aof_rewrite_scheduled persistence] == 0} 10000 "sync's rewrite done"
    r $sc BGREWRITEAOF
    wait_for {[info_field $sc aof_rewrite_in_progress persistence] == 0 &&
              [info_field $sc aof_rewrite_scheduled persistence] == 0} 10000 "rewrite done"
    r $pc SET m3 c
    r $sc SELECT 2
    r $sc MULTI
    r $sc SET t1 1
    r $sc SELECT 4
    r $sc SET t2 2
    r $sc EXEC
    r $pc SET m4 d
    repl_wait_caught_up $pc $sc
    set digest [r $sc DEBUG DIGEST]
    assert_not_equal [r $pc DEBUG DIGEST] $digest "the replica has more than its primary"
    close_client $sc
    # restarted, it is a primary of its own (REPLICAOF was not in its config)
    set s [restart_server $s]
    set sc [client $s]
    assert_equal $digest [r $sc DEBUG DIGEST]
    r $sc SELECT 5
    assert_equal {a b c d} [r $sc MGET m1 m2 m3 m4]
    r $sc SELECT 3
    assert_equal x [r $sc GET local1]
    r $sc SELECT 2
    assert_equal 1 [r $sc GET t1]
    r $sc SELECT 4
    assert_equal 2 [r $sc GET t2]
    kill_server $p
    kill_server $s
}

# TCP_NODELAY of the primary's socket to its (only) replica.
proc replica_nodelay {p pc} {
    regexp {fd=(\d+)} [r $pc CLIENT LIST TYPE replica] -> fd
    set helper [file join $::cairn_h::root tests helpers tcp_nodelay.py]
    return [exec python3 $helper [dict get $p pid] $fd]
}

if {[auto_execok python3] ne "" && ![catch {exec python3 -c "import os; os.pidfd_open"}]} {
    test "repl-disable-tcp-nodelay: TCP_NODELAY off on the link to a replica once it syncs" {
        foreach {disable want} {yes 0 no 1} {
            set p [fo_server "" repl-disable-tcp-nodelay $disable]
            set s [fo_server]
            set pc [client $p]
            repl_attach [client $s] $p
            repl_wait_online $pc 1
            assert_equal $want [replica_nodelay $p $pc] "repl-disable-tcp-nodelay $disable"
            kill_server $p
            kill_server $s
        }
    }
} else {
    skip "repl-disable-tcp-nodelay" "python3 with os.pidfd_open is needed to read a socket option"
}

foreach {behavior dies} {ignore 0 panic-on-replicas 1} {
    test "propagation-error-behavior $behavior: a replica failing its primary's command" {
        lassign [fo_pair] p s pc sc
        # the datasets diverge: the replica's k is a list, the primary has none
        r $sc CONFIG SET replica-read-only no
        r $sc RPUSH k x
        r $sc CONFIG SET replica-read-only yes
        r $sc CONFIG SET propagation-error-behavior $behavior
        r $pc INCR k
        set crit "*== CRITICAL == This replica is sending an error to its master: '-WRONGTYPE*' after processing the command 'incr'*"
        if {$dies} {
            wait_for {![server_alive $s]} 10000 "the replica stopped"
            assert_match "*panicked sending an error to its master after processing the command 'incr'*" \
                [read_bytes [dict get $s log]]
            ::cairn_h::forget [dict get $s pid]
        } else {
            wait_for {[info_field $sc unexpected_error_replies stats] == 1} 10000 "counted"
            r $pc INCR other
            wait_for {[r $sc GET other] eq "1"} 10000 "replication goes on"
            kill_server $s
        }
        assert_match $crit [read_bytes [dict get $s log]]
        kill_server $p
    }
}

if {$is_cairn} {
    test "WAITAOF numreplicas: a replica counts once its AOF fsynced the write (FACK), never without an AOF" {
        set p [fo_server]
        set a [fo_server "" appendonly yes appendfsync everysec]
        set n [fo_server]
        set pc [client $p]
        set ac [client $a]
        set nc [client $n]
        wait_for {[info_field $ac aof_rewrite_in_progress persistence] == 0} 10000 "first rewrite done"
        repl_attach $ac $p
        repl_attach $nc $p
        repl_wait_online $pc 2
        r $pc SET k v
        # everysec on the replica: it reports within about a second
        set t0 [clock milliseconds]
        assert_equal {0 1} [r $pc WAITAOF 0 1 5000]
        assert_range [expr {[clock milliseconds] - $t0}] 0 3000
        # the replica without an AOF never counts
        set t0 [clock milliseconds]
        assert_equal {0 1} [r $pc WAITAOF 0 2 400]
        assert {[clock milliseconds] - $t0 >= 350} "waited for the timeout"
        # a local AOF too
        r $pc CONFIG SET appendonly yes
        wait_for {[info_field $pc aof_rewrite_in_progress persistence] == 0 &&
                  [info_field $pc aof_enabled persistence] == 1} 10000 "primary AOF on"
        r $pc INCR n
        assert_equal {1 1} [r $pc WAITAOF 1 1 5000]
        # appendonly switched off on the replica: it stops counting
        r $ac CONFIG SET appendonly no
        r $pc INCR n
        assert_equal {1 0} [r $pc WAITAOF 1 1 1500]
        kill_server $p
        kill_server $a
        kill_server $n
    }
    if {$ref ne ""} {
        test "WAITAOF: a redis-server 7.0 replica (no FACK) does not count" {
            set p [fo_server]
            set s [fo_server $::ref appendonly yes]
            set pc [client $p]
            set sc [client $s]
            repl_attach $sc $p
            repl_wait_online $pc 1
            r $pc SET k v
            assert_equal 1 [r $pc WAIT 1 5000]
            assert_equal {0 0} [r $pc WAITAOF 0 1 500]
            kill_server $p
            kill_server $s
        }
    }
}

finish
