# proctitle.tcl -- the process title (/proc/PID/cmdline, what ps shows):
# proc-title-template expanded at start-up and on CONFIG SET, every
# {variable} ({title} is argv[0]), {{ }} escapes, an invalid template
# refused, set-proc-title no leaving the command line alone until a
# template is set. Linux only. Passes against redis-server too.

source [file join [file dirname [info script]] .. helpers harness.tcl]

proc cmdline_raw {srv} { return [read_bytes /proc/[dict get $srv pid]/cmdline] }

# The title: up to the first NUL (after it, padding).
proc cmdline {srv} { return [lindex [split [cmdline_raw $srv] "\0"] 0] }

if {![file readable /proc/self/cmdline]} {
    skip "process title" "no /proc"
    finish
}

set sock [file join $::cairn(tmp) title.sock]
set srv [start_server -config [list unixsocket $sock]]
set c [client $srv]
set port [dict get $srv port]
set bin [dict get $srv binary]

test "Default title: the program and its listening address" {
    assert_equal "$bin *:$port" [cmdline $srv]
}

test "CONFIG SET proc-title-template: every variable" {
    r $c CONFIG SET proc-title-template "TEST {title} {listen-addr} {port} {tls-port} {unixsocket} {config-file} {server-mode}"
    set conf [lindex [r $c INFO server] 0]
    regexp {config_file:([^\r\n]*)} [r $c INFO server] -> conf
    assert_equal "TEST $bin *:$port $port 0 $sock $conf" [cmdline $srv]
}

test "Escapes, trimming, a long title" {
    r $c CONFIG SET proc-title-template "  \{\{x\}\} \{port\}\}  "
    assert_equal "\{x\}\} $port\}" [cmdline $srv]
    # (Redis stops at 255 bytes)
    set long [string repeat L 240]
    r $c CONFIG SET proc-title-template "$long {port}"
    assert_equal "$long $port" [cmdline $srv]
    r $c CONFIG SET proc-title-template "short"
    assert_equal "short" [cmdline $srv]
}

test "An unknown variable is refused and the title stays" {
    assert_error "*template format is invalid*" {r $c CONFIG SET proc-title-template "{nosuch}"}
    assert_error "*template format is invalid*" {r $c CONFIG SET proc-title-template "   "}
    assert_equal {proc-title-template short} [r $c CONFIG GET proc-title-template]
    assert_equal "short" [cmdline $srv]
}

test "The server works on after the title took the environment's old place" {
    r $c SET k v
    assert_equal OK [r $c SAVE]
    assert_equal v [r $c GET k]
}
stop_server $srv

test "set-proc-title no: the command line as started, until a template is set" {
    set srv [start_server -config {set-proc-title no}]
    set c [client $srv]
    assert_match "[dict get $srv binary]\0*--port\0[dict get $srv port]\0*" [cmdline_raw $srv]
    # As Redis: the setting is read at start-up only.
    r $c CONFIG SET proc-title-template "TEST {port}"
    assert_equal "TEST [dict get $srv port]" [cmdline $srv]
    stop_server $srv
}

finish
