# aof_upgrade.tcl -- an upgrade from a Redis 6 single-file AOF interrupted
# after the manifest naming it was written but before the file moved into
# the AOF directory: start-up finishes the move and loads it. Passes
# against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]

test "An interrupted single-file AOF upgrade is finished at start-up" {
    set srv [start_server]
    stop_server $srv
    set dir [dict get $srv dir]
    write_bytes [file join $dir appendonly.aof] \
        "*3\r\n\$3\r\nSET\r\n\$2\r\nk1\r\n\$2\r\nv1\r\n*3\r\n\$3\r\nSET\r\n\$2\r\nk2\r\n\$2\r\nv2\r\n"
    file mkdir [file join $dir appendonlydir]
    write_bytes [file join $dir appendonlydir appendonly.aof.manifest] "file appendonly.aof seq 1 type b\n"
    dict set srv config [list appendonly yes]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal v1 [r $c GET k1]
    assert_equal v2 [r $c GET k2]
    assert_equal 0 [file exists [file join $dir appendonly.aof]]
    assert_equal 1 [file exists [file join $dir appendonlydir appendonly.aof]]
    set m [read_bytes [file join $dir appendonlydir appendonly.aof.manifest]]
    assert_match "*file appendonly.aof seq 1 type b*" $m
    assert_match "*file appendonly.aof.1.incr.aof seq 1 type i*" $m
    r $c SET k3 v3
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal v3 [r $c GET k3]
    stop_server $srv
}

finish
