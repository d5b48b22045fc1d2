# crash.tcl -- the bug report a fatal signal leaves in the log (src/crash.c):
# DEBUG SEGFAULT (a real invalid write) and DEBUG ASSERT (a failed
# serverAssert, which aborts). Each server runs under a small shell wrapper
# that records the exit status, so the test can check that the process died
# of the signal itself (what a supervisor needs to see), not of exit(1).

source [file join [file dirname [info script]] .. helpers harness.tcl]

# A server whose wrapper writes the exit status ($?: 128+signal) to
# DIR/exit-status when the server process ends.
proc start_crashable {} {
    set n [incr ::crashable]
    set wrapper [file join $::cairn(tmp) "wrapper-$n.sh"]
    set status [file join $::cairn(tmp) "exit-status-$n"]
    set f [open $wrapper w]
    puts $f "#!/bin/sh"
    puts $f "\"$::cairn(server)\" \"\$@\""
    puts $f "echo \$? > \"$status\""
    close $f
    file attributes $wrapper -permissions 0755
    set srv [start_server -binary $wrapper]
    dict set srv status_file $status
    return $srv
}

# Waits for the wrapper to record the exit status; returns it.
proc exit_status {srv} {
    set file [dict get $srv status_file]
    for {set i 0} {$i < 500 && ![file exists $file]} {incr i} { after 20 }
    if {![file exists $file]} { error "server did not exit" }
    after 20 ;# the wrapper may still be writing
    set f [open $file]
    set s [string trim [read $f]]
    close $f
    ::cairn_h::forget [dict get $srv pid]
    return $s
}

proc read_log {srv} {
    set f [open [dict get $srv log]]
    set data [read $f]
    close $f
    return $data
}

# The report and nothing before "Ready to accept connections" hides it.
proc assert_report {log} {
    foreach want {
        "=== CAIRN BUG REPORT START: Cut & paste starting from here ==="
        "------ STACK TRACE ------"
        "------ CURRENT CLIENT INFO ------"
        "------ SERVER STATE ------"
        "=== CAIRN BUG REPORT END. Make sure to include from START to END. ==="
    } {
        assert_match "*$want*" $log "the report lacks '$want'"
    }
    # backtrace_symbols_fd frames name the exported functions of the path
    # (debugCommand itself may sit in a .cold section, which has no name).
    assert_match "*(commandCall+0x*" $log "the backtrace does not reach commandCall"
    assert_match "*(commandProcess+0x*" $log "the backtrace does not reach commandProcess"
}

test "DEBUG SEGFAULT: report with signal, address, stack, client and state; dies of SIGSEGV" {
    set srv [start_crashable]
    set c [client $srv]
    r $c SELECT 3
    r $c SET k1 v1
    r $c SET k2 v2
    r $c EXPIRE k2 1000
    r $c CLIENT SETNAME crasher
    # A clipped, escaped argument: 200 bytes with CR LF and a NUL inside.
    set long "ab\r\n\x00[string repeat x 195]"
    send_cmd $c DEBUG SEGFAULT $long third
    assert_equal 1 [connection_closed $c 5000] "the connection should close"
    assert_equal [expr {128 + 11}] [exit_status $srv] "exit status should be 128+SIGSEGV"
    set log [read_log $srv]
    assert_report $log
    assert_match "*crashed by signal: 11 (SIGSEGV)*" $log
    assert_match "*Accessing address: 0x*" $log
    assert_match "*Crashed running the instruction at: 0x*" $log
    assert_match "*name='crasher'*" $log
    assert_match "* db=3 *" $log
    assert_match "*cmd=debug argc=4*" $log
    assert_match "*argv\\\[0\\\]: 'DEBUG'*" $log
    assert_match "*argv\\\[1\\\]: 'SEGFAULT'*" $log
    assert_match "*argv\\\[2\\\]: 'ab\\\\x0d\\\\x0a\\\\x00xxx*... (200 bytes)*" $log
    assert_match "*argv\\\[3\\\]: 'third'*" $log
    assert_match "*db3:keys=2,expires=1*" $log
    assert_match "*connected_clients:1*" $log
    assert_match "*tcp_port:[dict get $srv port]*" $log
}

test "DEBUG ASSERT: the assertion line, then the report; dies of SIGABRT" {
    set srv [start_crashable]
    set c [client $srv]
    r $c SET k v
    send_cmd $c DEBUG ASSERT
    assert_equal 1 [connection_closed $c 5000]
    assert_equal [expr {128 + 6}] [exit_status $srv] "exit status should be 128+SIGABRT"
    set log [read_log $srv]
    assert_match "*=== ASSERTION FAILED === *debug.c:* 'one == 2' is not true*" $log
    assert_report $log
    assert_match "*crashed by signal: 6 (SIGABRT)*" $log
    assert_match "*cmd=debug argc=2*" $log
    assert_match "*argv\\\[1\\\]: 'ASSERT'*" $log
    assert_match "*db0:keys=1,expires=0*" $log
    # The assertion line comes before the report, so a reader meets the cause first.
    assert {[string first "ASSERTION FAILED" $log] < [string first "BUG REPORT START" $log]}
}

test "DEBUG PANIC: the panic message, then the report" {
    set srv [start_crashable]
    set c [client $srv]
    send_cmd $c DEBUG PANIC
    assert_equal 1 [connection_closed $c 5000]
    assert_equal [expr {128 + 6}] [exit_status $srv]
    set log [read_log $srv]
    assert_match "*Guru Meditation: DEBUG PANIC*" $log
    assert_report $log
}

test "A crash report leaves no pid file behind" {
    set pidfile [file join $::cairn(tmp) crash.pid]
    set n [incr ::crashable]
    set wrapper [file join $::cairn(tmp) "wrapper-$n.sh"]
    set status [file join $::cairn(tmp) "exit-status-$n"]
    set f [open $wrapper w]
    puts $f "#!/bin/sh\n\"$::cairn(server)\" \"\$@\"\necho \$? > \"$status\""
    close $f
    file attributes $wrapper -permissions 0755
    set srv [start_server -binary $wrapper -config [list pidfile $pidfile]]
    dict set srv status_file $status
    assert_equal 1 [file exists $pidfile]
    set c [client $srv]
    send_cmd $c DEBUG SEGFAULT
    assert_equal 139 [exit_status $srv]
    assert_equal 0 [file exists $pidfile]
}

finish
