# aof_loadaof.tcl -- the AOF's DEBUG subcommands. DEBUG LOADAOF: the stream
# so far is written out, then the dataset is replaced by what the AOF's
# files hold (bytes added to the incremental file by hand show up,
# memory-only state does not survive);
# with appendonly no it loads what BGREWRITEAOF wrote. DEBUG AOF-FLUSH-SLEEP:
# the write of new bytes waits, and the reply with it.
# Passes against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]

test "DEBUG LOADAOF reloads the dataset from the AOF files" {
    set srv [start_server -config {appendonly yes appendfsync everysec}]
    set c [client $srv]
    r $c SET a 1
    r $c RPUSH l x y z
    r $c SET t v PX 100000
    r $c SELECT 3
    r $c HSET h f v
    r $c SELECT 0
    set digest [r $c DEBUG DIGEST]
    assert_equal OK [r $c DEBUG LOADAOF]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert {[r $c PTTL t] > 90000}
    # A command appended to the last incremental file by hand is loaded.
    set dir [file join [dict get $srv dir] appendonlydir]
    set incr ""
    foreach line [split [read_bytes [file join $dir appendonly.aof.manifest]] \n] {
        if {[lindex $line 5] eq "i"} { set incr [lindex $line 1] }
    }
    set f [open [file join $dir $incr] ab]
    puts -nonewline $f "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*3\r\n\$3\r\nSET\r\n\$4\r\nhand\r\n\$4\r\nmade\r\n"
    close $f
    assert_equal OK [r $c DEBUG LOADAOF]
    assert_equal made [r $c GET hand]
    assert_equal {x y z} [r $c LRANGE l 0 -1]
    r $c SELECT 3
    assert_equal v [r $c HGET h f]
    r $c SELECT 0
    # Writes after the reload still reach the file: a restart has them.
    r $c SET after 1
    set digest [r $c DEBUG DIGEST]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    stop_server $srv
}

test "DEBUG AOF-FLUSH-SLEEP: the write to the AOF waits, and the reply after it" {
    set srv [start_server -config {appendonly yes appendfsync always}]
    set c [client $srv]
    r $c SET warm 1
    assert_equal OK [r $c DEBUG AOF-FLUSH-SLEEP 300000]
    set incr ""
    foreach line [split [read_bytes [file join [dict get $srv dir] appendonlydir appendonly.aof.manifest]] \n] {
        if {[lindex $line 5] eq "i"} { set incr [lindex $line 1] }
    }
    set path [file join [dict get $srv dir] appendonlydir $incr]
    set before [file size $path]
    set t0 [clock milliseconds]
    assert_equal 1 [r $c INCR n]
    assert {[clock milliseconds] - $t0 >= 250}
    assert {[file size $path] > $before}
    # reads write nothing: no sleep
    set t0 [clock milliseconds]
    r $c GET n
    assert {[clock milliseconds] - $t0 < 250}
    assert_equal OK [r $c DEBUG AOF-FLUSH-SLEEP 0]
    stop_server $srv
}

test "DEBUG LOADAOF with appendonly no loads what BGREWRITEAOF wrote" {
    set srv [start_server]
    set c [client $srv]
    r $c RPUSH l a b c
    r $c SET s v
    set digest [r $c DEBUG DIGEST]
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] >= 1} 10000 "rewrite done"
    r $c SET later x ;# not in any file: appendonly is off
    assert_equal OK [r $c DEBUG LOADAOF]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal 0 [r $c EXISTS later]
    stop_server $srv
}

set is_cairn [string match *cairn* [file tail $::cairn(server)]]

test "DEBUG LOADAOF while a just-enabled AOF writes its first base: refused, the dataset kept" {
    if {!$is_cairn} { skip_test "redis-server loads the old files anyway (and loses the dataset)" }
    set srv [start_server]
    set c [client $srv]
    for {set i 0} {$i < 20} {incr i} { r $c SET k:$i $i }
    set digest [r $c DEBUG DIGEST]
    # every key takes 50 ms in the child: the first rewrite runs ~1 s
    r $c CONFIG SET rdb-key-save-delay 50000
    r $c CONFIG SET appendonly yes
    assert_equal 1 [info_field $c aof_rewrite_in_progress]
    assert_error "*DEBUG LOADAOF*first rewrite is still running*" {r $c DEBUG LOADAOF}
    assert_equal $digest [r $c DEBUG DIGEST]
    # once the base is in place it works, and it loads the same dataset
    r $c CONFIG SET rdb-key-save-delay 0
    r $c SET late 1
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] >= 1} 20000
    set digest [r $c DEBUG DIGEST]
    assert_equal OK [r $c DEBUG LOADAOF]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal 1 [r $c GET late]
    stop_server $srv
}

test "DEBUG LOADAOF serves other clients (-LOADING) while it loads" {
    set srv [start_server -config {appendonly yes appendfsync everysec}]
    set c [client $srv]
    # 20 MB in the RDB base, each key slowed down: the load takes ~1 s
    r $c DEBUG POPULATE 2000 key 10000
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] >= 1} 20000
    r $c SET tail 1
    set c2 [client $srv]
    r $c2 CONFIG SET key-load-delay 500
    set digest [r $c DEBUG DIGEST]
    send_cmd $c DEBUG LOADAOF
    wait_for {[catch {r $c2 PING} e] && [string match LOADING* $e]} 10000 "-LOADING during DEBUG LOADAOF"
    assert_equal OK [read_reply $c]
    r $c2 CONFIG SET key-load-delay 0
    assert_equal PONG [r $c2 PING]
    assert_equal $digest [r $c DEBUG DIGEST]
    stop_server $srv
}

finish
