# rdb_compression.tcl -- snapshot-compression none|lz4|zstd: the snapshot is
# one standard zstd or lz4 frame around the same RDB, any cairn loads all
# three forms whatever its own setting, the command-line tools (zstd -d,
# lz4 -d) give back a file Debian's redis-server loads with the same data,
# and a truncated or corrupted frame stops start-up cleanly.

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]

set is_cairn [expr {$::cairn(server) ne $::cairn(reference)}]
if {!$is_cairn} {
    puts "\[skip\] rdb_compression: snapshot-compression is cairn's own"
    finish
}

proc dump_path {srv} { return [file join [dict get $srv dir] dump.rdb] }

set srv [start_server]
set c [client $srv]
rdbdata_populate $c
# Some bulk, so the frames hold more than their headers.
r $c DEBUG POPULATE 20000 bulk 64
set digest [r $c DEBUG DIGEST]
set meta [rdbdata_meta $c]
r $c SELECT 0

set magic {none REDIS lz4 "\x04\x22\x4d\x18" zstd "\x28\xb5\x2f\xfd"}
set sizes {}

foreach mode {none lz4 zstd} {
    test "snapshot-compression $mode: the frame, and a restart loads it" {
        r $c CONFIG SET snapshot-compression $mode
        assert_equal OK [r $c SAVE]
        set bytes [read_bytes [dump_path $srv]]
        set want [dict get $magic $mode]
        assert_equal $want [string range $bytes 0 [expr {[string length $want] - 1}]] "file magic"
        dict set sizes $mode [string length $bytes]
        file copy -force [dump_path $srv] [file join $::cairn(tmp) $mode.rdb]
        # Restart with another setting: the file says what it is.
        set srv [restart_server $srv]
        set c [client $srv]
        r $c CONFIG SET snapshot-compression [expr {$mode eq "zstd" ? "none" : "zstd"}]
        assert_equal $digest [r $c DEBUG DIGEST]
        assert_equal $meta [rdbdata_meta $c]
        r $c SELECT 0
        r $c CONFIG SET snapshot-compression none
    }
}

test "Compressed snapshots are smaller: zstd < lz4 < none" {
    puts "    (sizes: $sizes)"
    assert {[dict get $sizes zstd] < [dict get $sizes lz4]}
    assert {[dict get $sizes lz4] < [dict get $sizes none]}
}

test "zstd -d and lz4 -d give back a file redis-server loads with the same data" {
    if {$::cairn(reference) eq ""} { skip_test "no reference server" }
    foreach {mode tool} {zstd zstd lz4 lz4} {
        if {[catch {exec which $tool}]} { skip_test "$tool not installed" }
        set rsrv [start_server -binary $::cairn(reference)]
        set rc [client $rsrv]
        set src [file join $::cairn(tmp) $mode.rdb]
        # Each tool's own way to name the output: zstd takes -o, lz4 a second operand.
        if {$tool eq "zstd"} {
            exec zstd -d -q -f $src -o [dump_path $rsrv]
        } else {
            exec lz4 -d -q -f $src [dump_path $rsrv]
        }
        set rsrv [restart_server $rsrv]
        set rc [client $rsrv]
        assert_equal $digest [r $rc DEBUG DIGEST] "$mode -> $tool -d -> redis-server"
        close_client $rc
        kill_server $rsrv
    }
}

# Starts the server on a dir holding `bytes` as dump.rdb: {exit-status log}.
proc start_on {bytes} {
    set dir [file join $::cairn(tmp) "broken-[incr ::broken]"]
    file mkdir $dir
    write_bytes [file join $dir dump.rdb] $bytes
    set code 0
    if {[catch {exec timeout 20 $::cairn(server) --port [::cairn_h::find_port] --dir $dir \
            --save "" --logfile [file join $dir log]} out opts]} {
        set ec [dict get $opts -errorcode]
        set code [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : "?$ec"}]
    }
    if {[string match *Sanitizer* $out] || [string match "*runtime error*" $out]} {
        set code "sanitizer: [string range $out 0 300]"
    }
    return [list $code [read_bytes [file join $dir log]]]
}
set ::broken 0

# What the command-line tool decodes `bytes` to ("" when it refuses them,
# or when the tool is missing).
proc decoded {mode bytes} {
    set in [file join $::cairn(tmp) decode-in]
    set out [file join $::cairn(tmp) decode-out]
    write_bytes $in $bytes
    file delete -force $out
    if {[catch {
        if {$mode eq "zstd"} { exec zstd -d -q -f $in -o $out } else { exec lz4 -d -q -f $in $out }
    }]} { return "" }
    return [read_bytes $out]
}

foreach mode {lz4 zstd} {
    test "A truncated $mode snapshot stops start-up cleanly" {
        set good [read_bytes [file join $::cairn(tmp) $mode.rdb]]
        set n [string length $good]
        foreach cut [list 3 4 10 [expr {$n / 3}] [expr {$n / 2}] [expr {$n - 20}] [expr {$n - 1}]] {
            lassign [start_on [string range $good 0 [expr {$cut - 1}]]] code log
            assert_equal 1 $code "exit status for a $mode file cut at $cut"
        }
    }
    test "Flipped bytes in a $mode snapshot stop start-up cleanly" {
        set good [read_bytes [file join $::cairn(tmp) $mode.rdb]]
        set n [string length $good]
        set plain [decoded $mode $good]
        expr {srand(77)}
        set tried 0
        while {$tried < 12} {
            set pos [expr {4 + int(rand() * ($n - 4))}]
            set bad [string replace $good $pos $pos [format %c [expr {[scan [string index $good $pos] %c] ^ 0xa5}]]]
            # A flip can leave the data as it was (an lz4 match offset
            # moved onto identical bytes, in a repetitive dataset): that
            # file is not corrupt, and loading it is right. Only flips that
            # change what the frame decodes to, or break it, count.
            if {$plain ne "" && [decoded $mode $bad] eq $plain} continue
            incr tried
            lassign [start_on $bad] code log
            assert_equal 1 $code "exit status for a $mode flip at $pos"
        }
    }
}

test "CONFIG SET snapshot-compression refuses an unknown codec" {
    assert_error "*snapshot-compression*" {r $c CONFIG SET snapshot-compression brotli}
    assert_equal {snapshot-compression none} [r $c CONFIG GET snapshot-compression]
}

finish
