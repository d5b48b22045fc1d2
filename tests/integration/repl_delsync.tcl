# repl_delsync.tcl -- rdb-del-sync-files: with persistence off (no save
# points, no AOF) the snapshot files a sync leaves behind are removed, on
# the replica once it loaded the payload and on the primary once no replica
# needs its disk snapshot any more; with persistence on, or with the
# directive off (the default), they stay, as in Redis. Each case passes
# against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

proc dump_exists {srv} { return [file exists [file join [dict get $srv dir] dump.rdb]] }

# A primary with disk-based sync (its snapshot goes through dump.rdb) and a
# replica, both with the given extra directives; the replica has synced.
proc synced_pair {primary_conf replica_conf} {
    set m [start_server -config [list repl-diskless-sync no {*}$primary_conf]]
    set s [start_server -config [list {*}$replica_conf]]
    set mc [client $m]
    set rc [client $s]
    r $mc SET k v
    repl_attach $rc $m
    repl_wait_caught_up $mc $rc
    assert_equal v [r $rc GET k]
    return [list $m $s $mc $rc]
}

test "rdb-del-sync-files yes with persistence off: both sides remove the sync's snapshot" {
    lassign [synced_pair {rdb-del-sync-files yes} {rdb-del-sync-files yes}] m s mc rc
    wait_for {![dump_exists $s]} 5000 "replica removed dump.rdb"
    wait_for {![dump_exists $m]} 5000 "primary removed dump.rdb"
    # the data stays, and the stream goes on
    r $mc SET k2 v2
    repl_wait_caught_up $mc $rc
    assert_equal v2 [r $rc GET k2]
    assert_equal v [r $rc GET k]
    foreach x [list $m $s] { kill_server $x }
}

test "rdb-del-sync-files no (the default): the files stay" {
    lassign [synced_pair {} {}] m s mc rc
    assert {[dump_exists $s]}
    # the primary's cron runs at least once a second: give it two
    after 2100
    assert {[dump_exists $m]}
    assert {[dump_exists $s]}
    foreach x [list $m $s] { kill_server $x }
}

test "rdb-del-sync-files yes with save points: the files are the snapshots, they stay" {
    lassign [synced_pair {rdb-del-sync-files yes save {3600 1}} {rdb-del-sync-files yes save {3600 1}}] m s mc rc
    after 2100
    assert {[dump_exists $m]}
    assert {[dump_exists $s]}
    foreach x [list $m $s] { kill_server $x }
}

# Redis' replica switches its AOF off while it loads the payload, so only
# save points keep the file there; on the primary the AOF keeps it.
test "rdb-del-sync-files yes with appendonly yes: the replica removes its file, the primary keeps its" {
    lassign [synced_pair {rdb-del-sync-files yes appendonly yes} {rdb-del-sync-files yes appendonly yes}] m s mc rc
    wait_for {![dump_exists $s]} 5000 "replica removed dump.rdb"
    after 2100
    assert {[dump_exists $m]}
    r $mc SET k3 v3
    repl_wait_caught_up $mc $rc
    assert_equal v3 [r $rc GET k3]
    foreach x [list $m $s] { kill_server $x }
}

finish
