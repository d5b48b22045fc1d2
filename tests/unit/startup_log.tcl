# startup_log.tcl -- the log lines of a start-up that fails, which supervisors
# and test harnesses read: the banner (with " PID: n") comes before the data
# is loaded, the reason a load failed is the last line, a busy port says
# "Failed listening on port N (TCP), aborting.", a missing AOF file is named
# with "No such file or directory", and a snapshot's empty keys are counted
# in its "Done loading RDB" line. Every test also runs against redis-server
# 7.0 (CAIRN_SERVER=/usr/bin/redis-server).

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbgen.tcl]

set bin $::cairn(server)

# Runs the binary in the background with args; waits (up to 10 s) for it to
# exit and returns {pid log-text}. The caller expects a refused start-up.
proc run_until_exit {dir args} {
    set log [file join $dir failed.log]
    file delete $log
    set pid [exec $::bin --dir $dir --logfile $log --save "" {*}$args >>& [file join $dir stdout] &]
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[::cairn_h::pid_alive $pid] && [clock milliseconds] < $deadline} { after 20 }
    if {[::cairn_h::pid_alive $pid]} {
        ::cairn_h::signal $pid KILL
        error "the server did not exit"
    }
    return [list $pid [read_bytes $log]]
}

proc last_line {text} { return [lindex [split [string trimright $text \n] \n] end] }

test "A failed AOF load: the banner's PID came first and the reason is the last line" {
    set srv [start_server -config {appendonly yes}]
    set c [client $srv]
    r $c SET k v
    wait_for {[info_field $c aof_buffer_length] == 0}
    kill_server $srv
    set incr [file join [dict get $srv dir] appendonlydir appendonly.aof.1.incr.aof]
    set f [open $incr ab]
    puts -nonewline $f "!!!\r\n"
    close $f
    lassign [run_until_exit [dict get $srv dir] --port [dict get $srv port] --appendonly yes \
                 --aof-load-truncated yes --always-show-logo yes] pid text
    set at_pid [string first " PID: $pid" $text]
    set at_bad [string first "Bad file format reading the append only file" $text]
    assert {$at_pid >= 0} "no PID line in: $text"
    assert {$at_bad > $at_pid} "the reason is missing or before the banner: $text"
    assert_match "*Bad file format reading the append only file*" [last_line $text]
}

test "A port in use: the log says Failed listening on port N (TCP), aborting." {
    set srv [start_server]
    set port [dict get $srv port]
    set dir [file join $::cairn(tmp) busy-port]
    file mkdir $dir
    lassign [run_until_exit $dir --port $port] pid text
    assert_match "*Failed listening on port $port (TCP), aborting.*" $text
    stop_server $srv
}

test "Empty collections in a snapshot are skipped and counted in the Done loading line" {
    set srv [start_server]
    stop_server $srv
    set body "[binary format c 0xfe][rdb_len 0]"
    append body [rdb_key 2 emptyset [rdb_len 0]] [rdb_key 4 emptyhash [rdb_len 0]]
    append body [rdb_key 0 str [rdb_str v]]
    write_bytes [file join [dict get $srv dir] dump.rdb] [rdb_file 9 $body]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 1 [r $c DBSIZE]
    set log [log_tail $srv 40]
    assert_match "*skipping empty key: emptyset*" $log
    assert_match "*skipping empty key: emptyhash*" $log
    assert_match "*Done loading RDB, keys loaded: 1, keys expired: 0, empty keys skipped: 2.*" $log
    stop_server $srv
}

test "A file the AOF manifest lists is missing: the log names it, No such file or directory" {
    set srv [start_server -config {appendonly yes}]
    set c [client $srv]
    r $c SET k v
    wait_for {[info_field $c aof_buffer_length] == 0}
    kill_server $srv
    set d [file join [dict get $srv dir] appendonlydir]
    file delete [file join $d appendonly.aof.1.incr.aof]
    lassign [run_until_exit [dict get $srv dir] --port [dict get $srv port] --appendonly yes] pid text
    assert_match "*appendonly.aof.1.incr.aof *No such file or directory*" $text
}

finish
