# repl_info.tcl -- what a primary's INFO says during a full sync: the
# snapshot child for the replica counts as a BGSAVE in progress
# (rdb_bgsave_in_progress, rdb_current_bgsave_time_sec), for a diskless
# and a disk-based sync, as in Redis. Passes against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

foreach diskless {yes no} {
    test "A full sync's snapshot shows as a BGSAVE in progress (diskless $diskless)" {
        set m [start_server -config [list repl-diskless-sync $diskless repl-diskless-sync-delay 0]]
        set r [start_server]
        set mc [client $m]
        set rc [client $r]
        r $mc DEBUG POPULATE 20
        # 100 ms per key: a snapshot of about 2 s
        r $mc CONFIG SET rdb-key-save-delay 100000
        assert_equal 0 [info_field $mc rdb_bgsave_in_progress persistence]
        r $rc REPLICAOF [dict get $m host] [dict get $m port]
        wait_for {[info_field $mc rdb_bgsave_in_progress persistence] == 1} 5000 "bgsave shown"
        assert {[info_field $mc rdb_current_bgsave_time_sec persistence] >= 0}
        r $mc CONFIG SET rdb-key-save-delay 0
        repl_wait_link $rc 30000
        wait_for {[info_field $mc rdb_bgsave_in_progress persistence] == 0} 10000 "bgsave over"
        assert_equal -1 [info_field $mc rdb_current_bgsave_time_sec persistence]
        assert_equal 20 [r $rc DBSIZE]
        stop_server $r
        stop_server $m
    }
}

finish
