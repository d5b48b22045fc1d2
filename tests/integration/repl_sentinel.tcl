# repl_sentinel.tcl -- Debian's redis-sentinel 7.0, unmodified, manages a
# group of servers under test: three sentinels watch a primary with two
# replicas; the primary is killed; they agree it is down, promote a
# replica (REPLICAOF NO ONE), point the other one at it (MULTI, REPLICAOF,
# CONFIG REWRITE, CLIENT KILL TYPE normal, EXEC), return the new address
# through SENTINEL get-master-addr-by-name, and the old primary rejoins as
# a replica when it comes back. Writes made before and after survive.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set sentinel_bin /usr/bin/redis-sentinel

# Sentinel kills normal clients of the instances it reconfigures
# (CLIENT KILL TYPE normal): ask on a connection of our own each time.
proc role_of {srv} {
    if {[catch {
        set c [client $srv]
        set role [lrange [r $c ROLE] 0 3]
        close_client $c
    }]} { return "" }
    return $role
}

proc sentinel_field {sc field} {
    set d [r $sc SENTINEL MASTER mym]
    return [dict get $d $field]
}

test "redis-sentinel fails a group of these servers over and the old primary rejoins" {
    if {![file executable $::sentinel_bin]} { skip_test "no redis-sentinel" }
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set r1 [start_server -config {repl-diskless-sync-delay 0}]
    set r2 [start_server -config {repl-diskless-sync-delay 0}]
    set pc [client $p]
    set r1c [client $r1]
    set r2c [client $r2]
    repl_attach $r1c $p
    repl_attach $r2c $p
    r $pc SET before-failover 1
    r $pc HSET h f v
    set conf "sentinel monitor mym 127.0.0.1 [dict get $p port] 2\n"
    # 2 s rather than 1: right after a switch a sentinel needs its new link to
    # the promoted replica to answer within this time, or (seen on a loaded
    # machine) it fails the new primary over again
    append conf "sentinel down-after-milliseconds mym 2000\n"
    append conf "sentinel failover-timeout mym 10000\n"
    set sentinels {}
    for {set i 0} {$i < 3} {incr i} {
        lappend sentinels [start_server -binary $::sentinel_bin -conftext $conf]
    }
    set sc [client [lindex $sentinels 0]]
    wait_for {[sentinel_field $sc num-slaves] == 2 && [sentinel_field $sc num-other-sentinels] == 2} 30000 \
        "sentinels see the replicas and each other"
    repl_wait_caught_up $pc $r1c
    repl_wait_caught_up $pc $r2c

    kill_server $p
    set oldport [dict get $p port]
    wait_for {[lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1] != $oldport} 40000 "a new primary"
    set newport [lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1]
    if {$newport == [dict get $r1 port]} {
        set new $r1; set other $r2
    } else {
        assert_equal [dict get $r2 port] $newport
        set new $r2; set other $r1
    }
    wait_for {[lindex [role_of $new] 0] eq "master"} 30000 "the promoted replica is a primary"
    wait_for {[role_of $other] eq [list slave 127.0.0.1 $newport connected]} 30000 \
        "the other replica follows the new primary"
    set nc [client $new]
    set oc [client $other]
    # sentinel's CONFIG REWRITE recorded the new primary in its config file
    assert_match "*replicaof 127.0.0.1 $newport*" [read_bytes [dict get $other conffile]]
    r $nc SET after-failover 2
    repl_wait_caught_up $nc $oc
    assert_equal 1 [r $oc GET before-failover]
    assert_equal 2 [r $oc GET after-failover]

    # the old primary comes back and is turned into a replica. Sentinel
    # converts it only after it reported role:master for 8 s and at its next
    # INFO (every 10 s for a replica): a loaded machine needs the margin.
    # Should the sentinels still have failed over once more, the old primary
    # follows whichever primary they name now.
    set p [restart_server $p]
    wait_for {[role_of $p] eq [list slave 127.0.0.1 \
        [lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1] connected]} 90000 \
        "the old primary rejoins as a replica"
    set curport [lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1]
    if {$curport != $newport} {
        set nc [client [expr {$curport == [dict get $r1 port] ? $r1 : $r2}]]
    }
    set pc [client $p]
    repl_wait_caught_up $nc $pc
    assert_equal 2 [r $pc GET after-failover]
    assert_equal [r $nc DEBUG DIGEST] [r $pc DEBUG DIGEST]
    foreach s $sentinels { kill_server $s }
}

finish
