# watchdog.tcl -- the software watchdog (src/watchdog.c): with
# watchdog-period set, a main thread stuck longer than the period (here in
# DEBUG SLEEP) leaves "--- WATCHDOG TIMER EXPIRED ---" and its stack in the
# log, and the server carries on serving. Runs the same against redis-server.

source [file join [file dirname [info script]] .. helpers harness.tcl]

proc read_log {srv} { return [read_bytes [dict get $srv log]] }

proc reports {srv} {
    return [regexp -all -- {--- WATCHDOG TIMER EXPIRED ---} [read_log $srv]]
}

test "A stuck command: report with the stack, then the server goes on" {
    set srv [start_server]
    set c [client $srv]
    assert_equal OK [r $c CONFIG SET watchdog-period 200]
    assert_equal 0 [reports $srv]
    assert_equal OK [r $c DEBUG SLEEP 1]
    wait_for {[reports $srv] >= 1} 5000 "no watchdog report in the log"
    set log [read_log $srv]
    assert_match "*WATCHDOG TIMER EXPIRED*STACK TRACE*" $log
    # The stack is the stuck thread's: it goes through the command call.
    assert_match "*WATCHDOG TIMER EXPIRED*(debugCommand+0x*" $log
    assert_equal PONG [r $c PING]
    r $c SET k v
    assert_equal v [r $c GET k]
    assert_equal 1 [server_alive $srv]
    # One alarm per stall: the next healthy ticks rearm it, nothing more fires.
    after 600
    assert_equal 1 [reports $srv]
    stop_server $srv
}

test "A period shorter than two cron ticks is raised to two ticks" {
    set srv [start_server -config {hz 10}]
    set c [client $srv]
    r $c CONFIG SET watchdog-period 30
    assert_equal {watchdog-period 200} [r $c CONFIG GET watchdog-period]
    r $c CONFIG SET watchdog-period 0
    assert_equal {watchdog-period 0} [r $c CONFIG GET watchdog-period]
    stop_server $srv
}

test "An idle server with the watchdog armed writes no report" {
    set srv [start_server]
    set c [client $srv]
    r $c CONFIG SET watchdog-period 200
    after 1200
    assert_equal PONG [r $c PING]
    assert_equal 0 [reports $srv]
    stop_server $srv
}

test "watchdog-period 0 disarms it: a later stall neither reports nor kills" {
    set srv [start_server]
    set c [client $srv]
    r $c CONFIG SET watchdog-period 200
    r $c CONFIG SET watchdog-period 0
    assert_equal OK [r $c DEBUG SLEEP 0.6]
    # SIGALRM's default action would have ended the process.
    assert_equal PONG [r $c PING]
    assert_equal 1 [server_alive $srv]
    assert_equal 0 [reports $srv]
    stop_server $srv
}

test "watchdog-period from the config file arms it at start-up" {
    set srv [start_server -config {watchdog-period 200}]
    set c [client $srv]
    assert_equal OK [r $c DEBUG SLEEP 0.8]
    wait_for {[reports $srv] >= 1} 5000 "no watchdog report in the log"
    assert_equal PONG [r $c PING]
    stop_server $srv
}

finish
