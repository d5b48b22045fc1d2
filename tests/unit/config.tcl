# config.tcl -- configuration: the file parser and its errors, include,
# command-line overrides, CONFIG GET/SET/RESETSTAT/REWRITE, default.conf,
# and the process directives (pidfile, logfile, loglevel, daemonize, signals).

source [file join [file dirname [info script]] .. helpers harness.tcl]

set bin $::cairn(server)
set root [file normalize [file join [file dirname [info script]] .. ..]]
set tmp $::cairn(tmp)

# Run the server binary expecting it to refuse to start; returns its output.
proc start_fails {args} {
    set rc [catch {exec -ignorestderr $::bin {*}$args 2>@1} out]
    if {!$rc} { error "server started and exited 0: $out" }
    return $out
}

proc write_file {path text} {
    set f [open $path w]
    puts -nonewline $f $text
    close $f
}

proc read_file {path} {
    set f [open $path r]
    set t [read $f]
    close $f
    return $t
}

test "an unknown directive stops start-up naming file, line and directive" {
    set conf [file join $tmp bad1.conf]
    write_file $conf "# comment\nport 7777\nno-such-directive yes\n"
    set out [start_fails $conf]
    assert_match "*$conf*line 3*" $out
    assert_match "*no-such-directive*" $out
    assert_match "*Bad directive or wrong number of arguments*" $out
}

test "bad values stop start-up with the reason" {
    set conf [file join $tmp bad2.conf]
    write_file $conf "daemonize maybe\n"
    assert_match "*argument must be 'yes' or 'no'*" [start_fails $conf]
    write_file $conf "port notanumber\n"
    assert_match "*line 1*port*" [start_fails $conf]
    write_file $conf "databases 0\n"
    assert_match "*databases*" [start_fails $conf]
    write_file $conf "maxmemory lots\n"
    assert_match "*maxmemory*" [start_fails $conf]
    write_file $conf "appendfsync sometimes\n"
    assert_match "*appendfsync*" [start_fails $conf]
    write_file $conf "bind \"unbalanced\n"
    assert_match "*line 1*" [start_fails $conf]
}

test "bad command-line overrides stop start-up too" {
    assert_match "*hz*" [start_fails --hz abc]
    assert_match "*no-such-option*" [start_fails --no-such-option 1]
}

test "activedefrag yes is refused as by a Redis without its patched jemalloc" {
    set s [start_server]
    set sc [client $s]
    assert_error "ERR CONFIG SET failed (possibly related to argument 'activedefrag') - Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution" \
            {r $sc CONFIG SET activedefrag yes}
    assert_equal {activedefrag no} [r $sc CONFIG GET activedefrag]
    assert_equal OK [r $sc CONFIG SET activedefrag no]
    kill_server $s
    assert_match "*Active defragmentation cannot be enabled*" [start_fails --port 0 --activedefrag yes]
}

test "a busy port stops start-up with Redis' 'Failed listening on port' line" {
    set busy [socket -server {apply {{s a p} {close $s}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $busy -sockname] 2]
    set out [start_fails --port $port --bind 127.0.0.1 --save ""]
    close $busy
    assert_match "*Failed listening on port $port (TCP), aborting.*" $out
}

test "command-line errors show the option with its values quoted" {
    assert_match {*'port "6379" "6380"'*wrong number of arguments*} [start_fails --port 6379 6380]
    assert_match {*'port "--bla"'*couldn't be parsed into an integer*} [start_fails --port --bla --loglevel verbose]
    assert_match {*'loglevel "--bla"'*must be one of the following*} [start_fails --logfile --my--log --loglevel --bla]
    # an option that takes a list still needs a value
    assert_match {*'shutdown-on-sigint'*must be one of the following*} [start_fails --shutdown-on-sigint]
}

test "rename-command renames or removes commands, and survives CONFIG REWRITE" {
    set s2 [start_server -conftext "rename-command flushdb badger\nrename-command lastsave \"\"\n"]
    set x [client $s2]
    assert_error "ERR unknown command 'flushdb'*" {r $x flushdb}
    assert_error "ERR unknown command 'lastsave'*" {r $x lastsave}
    assert_equal OK [r $x BADGER]
    assert_equal {} [r $x CONFIG GET rename-command]
    assert_error "ERR syntax error" {r $x CONFIG SET rename-command get fetch}
    assert_equal OK [r $x CONFIG REWRITE]
    set s2 [restart_server $s2]
    set x [client $s2]
    assert_error "ERR unknown command 'flushdb'*" {r $x flushdb}
    assert_equal OK [r $x BADGER]
    stop_server $s2
    assert_match "*No such command in rename-command*" [start_fails --rename-command nosuch x]
    assert_match "*Target command name already exists*" [start_fails --rename-command get set]
}

test "a missing config file or include is reported" {
    assert_match "*no-such-file.conf*" [start_fails [file join $tmp no-such-file.conf]]
    set conf [file join $tmp inc-missing.conf]
    write_file $conf "include [file join $tmp nope.conf]\n"
    assert_match "*nope.conf*" [start_fails $conf]
}

test "default.conf loads (and with a port override, serves)" {
    set srv [start_server -conftext [read_file [file join $root default.conf]]]
    set c [client $srv]
    assert_equal PONG [r $c PING]
    assert_equal {databases 16} [r $c CONFIG GET databases]
    stop_server $srv
}

test "include, quoting and later values override earlier ones" {
    set inc [file join $tmp inc.conf]
    write_file $inc "maxmemory-policy allkeys-lru\nslowlog-max-len 77\n"
    set text "# main\ninclude $inc\nslowlog-max-len 99\nproc-title-template \"{title} {port}\"\nhz 20\n"
    set srv [start_server -conftext $text -config {hz 30}]
    set c [client $srv]
    assert_equal {maxmemory-policy allkeys-lru} [r $c CONFIG GET maxmemory-policy]
    assert_equal {slowlog-max-len 99} [r $c CONFIG GET slowlog-max-len]
    assert_equal {proc-title-template {{title} {port}}} [r $c CONFIG GET proc-title-template]
    assert_equal {hz 30} [r $c CONFIG GET hz]
    stop_server $srv
}

set srv [start_server]
set c [client $srv]

test "CONFIG GET with globs and several patterns, no duplicates" {
    set d [r $c CONFIG GET maxmemory*]
    assert {[dict exists $d maxmemory] && [dict exists $d maxmemory-policy] && [dict exists $d maxmemory-samples]}
    set d [r $c CONFIG GET port port hz]
    assert_equal 4 [llength $d]
    assert_equal {} [r $c CONFIG GET no-such-*]
}

test "CONFIG SET bind or port that cannot listen keeps the old listeners" {
    assert_error "*- Failed to bind to specified addresses." {r $c CONFIG SET bind 999.999.999.999}
    set x [client $srv]
    assert_equal PONG [r $x PING]
    close_client $x
}

# A non-loopback IPv4 address of this machine, or "".
proc nonloopback_addr {} {
    if {[catch {exec hostname -I} addrs]} { return "" }
    foreach a $addrs {
        if {[regexp {^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$} $a] && ![string match 127.* $a]} { return $a }
    }
    return ""
}

test "protected mode refuses non-loopback clients while no password is set" {
    set addr [nonloopback_addr]
    if {$addr eq ""} { skip_test "no non-loopback IPv4 address" }
    set s2 [start_server]
    set local [client $s2]
    set far [dict replace $s2 host $addr]
    set x [client $far]
    assert_error "DENIED Redis is running in protected mode*" {r $x PING}
    close_client $x
    r $local CONFIG SET requirepass secret
    set x [client $far]
    assert_equal OK [r $x AUTH secret]
    close_client $x
    r $local AUTH secret
    r $local CONFIG SET requirepass ""
    r $local CONFIG SET protected-mode no
    set x [client $far]
    assert_equal PONG [r $x PING]
    close_client $x
    stop_server $s2
}

test "bind \"\" closes the TCP listeners" {
    set s2 [start_server]
    set x [client $s2]
    r $x CONFIG SET bind ""
    assert_equal {bind {}} [r $x CONFIG GET bind]
    assert_error "*connection refused*" {client $s2}
    assert_equal PONG [r $x PING]
    r $x CONFIG SET bind "* -::*"
    set y [client $s2]
    assert_equal PONG [r $y PING]
    stop_server $s2
}

test "hidden configs answer only to their exact name" {
    foreach name {key-load-delay rdb-key-save-delay watchdog-period use-exit-on-panic
                  loading-process-events-interval-bytes} {
        assert {[dict exists [r $c CONFIG GET $name] $name]} "CONFIG GET $name"
        assert {![dict exists [r $c CONFIG GET *] $name]} "$name hidden from CONFIG GET *"
    }
    assert_equal OK [r $c CONFIG SET key-load-delay 10]
    assert_equal {key-load-delay 10} [r $c CONFIG GET key-load-delay]
    r $c CONFIG SET key-load-delay 0
    assert_equal {latency-tracking-info-percentiles {50 99 99.9}} [r $c CONFIG GET latency-tracking-info-percentiles]
    assert_equal {server_cpulist {}} [r $c CONFIG GET server_cpulist]
}

test "CONFIG SET several parameters at once, and atomically" {
    assert_equal OK [r $c CONFIG SET slowlog-max-len 5 hz 25]
    assert_equal {slowlog-max-len 5} [r $c CONFIG GET slowlog-max-len]
    assert_equal {hz 25} [r $c CONFIG GET hz]
    # One bad value: nothing changes.
    assert_error "*maxmemory-policy*" {r $c CONFIG SET slowlog-max-len 9 maxmemory-policy bogus}
    assert_equal {slowlog-max-len 5} [r $c CONFIG GET slowlog-max-len]
    assert_error "*duplicate parameter*" {r $c CONFIG SET hz 10 hz 11}
    assert_error "*Unknown option*" {r $c CONFIG SET nosuch 1}
    assert_error "*can't set immutable config*" {r $c CONFIG SET databases 20}
}

test "CONFIG SET memory units and CONFIG GET shows bytes" {
    r $c CONFIG SET maxmemory 1mb
    assert_equal {maxmemory 1048576} [r $c CONFIG GET maxmemory]
    r $c CONFIG SET maxmemory 0
}

test "CONFIG SET timeout takes effect for idle clients" {
    r $c CONFIG SET timeout 1
    set x [client $srv]
    r $x PING
    assert [connection_closed $x 5000]
    # Our own idle connection may have been closed too.
    catch {close_client $c}
    set c [client $srv]
    r $c CONFIG SET timeout 0
}

test "CONFIG RESETSTAT clears counters" {
    r $c SET a b
    r $c GET a
    r $c CONFIG RESETSTAT
    assert_equal 0 [info_field $c keyspace_hits stats]
    assert_match "*cmdstat_config*" [r $c INFO commandstats]
    assert {![string match "*cmdstat_get*" [r $c INFO commandstats]]}
}

test "CONFIG REWRITE keeps comments and records changed values" {
    set conf [dict get $srv conffile]
    write_file $conf "# my comment stays\nslowlog-max-len 5\n# another comment\n"
    stop_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    r $c CONFIG SET slowlog-max-len 42 maxmemory-policy allkeys-lfu
    assert_equal OK [r $c CONFIG REWRITE]
    set text [read_file $conf]
    assert_match "*# my comment stays*" $text
    assert_match "*# another comment*" $text
    assert_match "*slowlog-max-len 42*" $text
    assert_match "*maxmemory-policy allkeys-lfu*" $text
    assert {![string match "*slowlog-max-len 5\n*" $text]}
    # The rewritten file starts the server with the same values.
    stop_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {slowlog-max-len 42} [r $c CONFIG GET slowlog-max-len]
}

test "DEBUG CONFIG-REWRITE-FORCE-ALL writes every value and restarts the same" {
    set s2 [start_server -config {enable-debug-command yes}]
    set x [client $s2]
    r $x CONFIG SET maxmemory-policy allkeys-lru latency-tracking-info-percentiles "10 90"
    set before [dict create {*}[r $x CONFIG GET *]]
    assert_equal OK [r $x DEBUG CONFIG-REWRITE-FORCE-ALL]
    set text [read_file [dict get $s2 conffile]]
    # defaults are written too
    assert_match "*\nhz 10\n*" $text
    assert_match "*\nlatency-tracking-info-percentiles 10 90\n*" $text
    set s2 [restart_server $s2]
    set x [client $s2]
    dict for {k v} $before {
        assert_equal $v [lindex [r $x CONFIG GET $k] 1] "$k after the rewrite"
    }
    stop_server $s2
}

test "pidfile is written and removed on shutdown" {
    set pidfile [file join $tmp cairn.pid]
    set s2 [start_server -config [list pidfile $pidfile]]
    wait_for {[file exists $pidfile]}
    assert_equal [dict get $s2 pid] [string trim [read_file $pidfile]]
    stop_server $s2
    assert {![file exists $pidfile]}
}

test "SIGTERM and SIGINT shut down cleanly with a log line" {
    foreach sig {TERM INT} {
        set s2 [start_server]
        exec kill -$sig [dict get $s2 pid]
        wait_for {![server_alive $s2]}
        assert_match "*ready to exit*" [log_tail $s2 5]
    }
}

test "always-show-logo prints the banner with the pid" {
    set s2 [start_server -config {always-show-logo yes}]
    assert_match "* PID: [dict get $s2 pid]*" [log_tail $s2 30]
    stop_server $s2
    set s2 [start_server]
    assert_match "*Running mode=standalone, port=[dict get $s2 port].*" [log_tail $s2 30]
    stop_server $s2
}

test "loglevel filters and logfile receives the log" {
    set s2 [start_server -config {loglevel warning}]
    set x [client $s2]
    r $x DEBUG LOG "hello from the test"
    assert_match "*hello from the test*" [log_tail $s2 5]
    assert {![string match "*Ready to accept*" [log_tail $s2 50]]}
    r $x CONFIG SET loglevel verbose
    set y [client $s2]
    close_client $y
    wait_for {[string match "*Client closed connection*" [log_tail $s2 5]]}
    stop_server $s2
}

test "daemonize yes detaches and still serves" {
    set port [::cairn_h::find_port]
    set dir [file join $tmp daemon]
    file mkdir $dir
    set pidfile [file join $dir d.pid]
    exec $bin --port $port --daemonize yes --pidfile $pidfile --dir $dir \
        --logfile [file join $dir log] --save ""
    wait_for {[file exists $pidfile]}
    set pid [string trim [read_file $pidfile]]
    set x [client [dict create host 127.0.0.1 port $port]]
    assert_equal PONG [r $x PING]
    catch {r $x SHUTDOWN NOSAVE}
    wait_for {![file exists $pidfile]}
    wait_for {[catch {exec kill -0 $pid}]}
}

test "unix socket with permissions" {
    set sock [file join $tmp cairn.sock]
    set s2 [start_server -config [list unixsocket $sock unixsocketperm 700]]
    wait_for {[file exists $sock]}
    assert_equal 0700 [format %04o [expr {[file attributes $sock -permissions] & 0777}]]
    set ch [socket -async localhost [dict get $s2 port]]
    close $ch
    set out [exec redis-cli -s $sock PING]
    assert_equal PONG $out
    stop_server $s2
    assert {![file exists $sock]}
}

test "IPv6 loopback listener" {
    set s2 [start_server -config {bind {127.0.0.1 ::1}}]
    set out [exec redis-cli -h ::1 -p [dict get $s2 port] PING]
    assert_equal PONG $out
    stop_server $s2
}

test "maxclients rejects the extra connection with Redis' error" {
    r $c CONFIG SET maxclients 2
    set x [client $srv]
    r $x PING
    set y [client $srv]
    assert_error "*max number of clients reached*" {r $y PING}
    close_client $x
    r $c CONFIG SET maxclients 10000
}

test "oom-score-adj sets the process's OOM score, relative or absolute, and restores it" {
    proc oom_of {srv} {
        set fd [open "/proc/[dict get $srv pid]/oom_score_adj" r]
        set v [string trim [read $fd]]
        close $fd
        return $v
    }
    set osrv [start_server]
    set x [client $osrv]
    set base [oom_of $osrv]
    r $x CONFIG SET oom-score-adj-values "10 20 30"
    assert_equal $base [oom_of $osrv] ;# off: values alone change nothing
    r $x CONFIG SET oom-score-adj yes
    assert_equal [expr {$base + 10}] [oom_of $osrv]
    r $x CONFIG SET oom-score-adj-values "15 20 30"
    assert_equal [expr {$base + 15}] [oom_of $osrv]
    r $x CONFIG SET oom-score-adj absolute
    assert_equal 15 [oom_of $osrv]
    r $x CONFIG SET oom-score-adj-values "2000 2000 2000"
    assert_equal 1000 [oom_of $osrv] ;# clamped to the kernel's range
    r $x CONFIG SET oom-score-adj no
    assert_equal $base [oom_of $osrv]
    close_client $x
    stop_server $osrv

    set osrv [start_server -args {--oom-score-adj yes --oom-score-adj-values "7 20 30"}]
    assert_equal [expr {$base + 7}] [oom_of $osrv]
    stop_server $osrv
}

test "oom-score-adj: a replica takes the second value, a fork child the third" {
    set osrv [start_server]
    set x [client $osrv]
    set base [oom_of $osrv]
    r $x CONFIG SET oom-score-adj-values "10 20 30"
    r $x CONFIG SET oom-score-adj yes
    assert_equal [expr {$base + 10}] [oom_of $osrv]
    r $x REPLICAOF 127.0.0.1 1
    assert_equal [expr {$base + 20}] [oom_of $osrv]
    r $x REPLICAOF NO ONE
    assert_equal [expr {$base + 10}] [oom_of $osrv]
    r $x SET k v
    r $x CONFIG SET rdb-key-save-delay 1000000
    r $x BGSAVE
    set cpid ""
    for {set i 0} {$i < 100 && $cpid eq ""} {incr i} {
        set cpid [exec sh -c "cat /proc/[dict get $osrv pid]/task/*/children"]
        if {$cpid eq ""} { after 20 }
    }
    assert {$cpid ne ""} "a BGSAVE child"
    set cpid [lindex $cpid 0]
    set ok 0
    for {set i 0} {$i < 100} {incr i} {
        if {[oom_of [dict create pid $cpid]] == $base + 30} { set ok 1; break }
        after 20
    }
    assert $ok "the child has the third value"
    r $x CONFIG SET rdb-key-save-delay 0
    catch {exec kill $cpid}
    close_client $x
    stop_server $osrv
}

test "bind-source-addr: a replica connects to its primary from that address" {
    set p [start_server -config {protected-mode no repl-diskless-sync-delay 0}]
    set pc [client $p]
    set rep [start_server]
    set rc [client $rep]
    r $rc CONFIG SET bind-source-addr 127.0.0.2
    r $rc REPLICAOF 127.0.0.1 [dict get $p port]
    set line ""
    for {set i 0} {$i < 100} {incr i} {
        set line [info_field $pc slave0 replication]
        if {[string match "*state=online*" $line]} break
        after 50
    }
    assert_match "ip=127.0.0.2,*state=online*" $line
    close_client $rc
    close_client $pc
    stop_server $rep
    stop_server $p
}

test "jemalloc-bg-thread starts and stops jemalloc's purging thread" {
    set jsrv [start_server]
    set x [client $jsrv]
    if {![string match jemalloc* [info_field $x mem_allocator memory]]} {
        close_client $x
        stop_server $jsrv
        skip_test "not built with jemalloc"
    }
    proc bg_threads {srv} {
        set n 0
        foreach f [glob -nocomplain /proc/[dict get $srv pid]/task/*/comm] {
            set fd [open $f r]
            if {[string trim [read $fd]] eq "jemalloc_bg_thd"} { incr n }
            close $fd
        }
        return $n
    }
    # on by default, as in Redis: freed pages go back to the OS unprompted
    wait_for {[bg_threads $jsrv] > 0} 5000 "no jemalloc background thread"
    r $x CONFIG SET jemalloc-bg-thread no
    wait_for {[bg_threads $jsrv] == 0} 5000 "jemalloc background thread still running"
    r $x CONFIG SET jemalloc-bg-thread yes
    wait_for {[bg_threads $jsrv] > 0} 5000 "no jemalloc background thread"
    close_client $x
    stop_server $jsrv
}

finish
