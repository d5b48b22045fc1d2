# check_rdb.tcl -- utils/cairn-check-rdb (the server binary's loader in
# check-only mode): a sound snapshot from cairn, from Debian's redis-server
# and inside a zstd or lz4 frame reports its AUX fields and its keys per
# database, type and encoding, and exits 0; a missing, truncated or
# corrupted file names the first error with its byte offset and exits 1.

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]

if {$::cairn(server) eq $::cairn(reference)} {
    puts "\[skip\] check_rdb: cairn's own tool"
    finish
}

# Runs the checker on path: {exit-status output}.
proc check_rdb {path} {
    set code 0
    set tool [file join $::cairn_h::root utils cairn-check-rdb]
    if {[catch {exec env CAIRN_SERVER=$::cairn(server) timeout 60 $tool $path 2>@1} out opts]} {
        set ec [dict get $opts -errorcode]
        set code [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : "?$ec"}]
    }
    if {[string match *Sanitizer* $out] || [string match "*runtime error*" $out]} {
        set code "sanitizer: $out"
    }
    return [list $code $out]
}


set srv [start_server]
set c [client $srv]
rdbdata_populate $c
r $c SELECT 0
r $c SAVE
set dump [file join [dict get $srv dir] dump.rdb]

# What the server holds, per type and encoding, as the checker words it.
proc expected_counts {c} {
    set counts {}
    foreach db {0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15} {
        r $c SELECT $db
        foreach k [r $c KEYS *] {
            dict incr counts "[r $c TYPE $k] [r $c OBJECT ENCODING $k]"
        }
    }
    r $c SELECT 0
    return $counts
}
set want [expected_counts $c]

test "A cairn snapshot checks OK with its AUX fields and per-encoding counts" {
    lassign [check_rdb $dump] code out
    assert_equal 0 $code $out
    assert_match "*AUX FIELD redis-ver = '7.0.15'*" $out
    assert_match "*AUX FIELD redis-bits = '64'*" $out
    assert_match "*RDB looks OK!*" $out
    assert_match "*RDB version 10*" $out
    set total 0
    dict for {te n} $want {
        # exec drops the last newline: put it back so every line ends in one.
        assert {[string first "\[info\] $te: $n keys\n" "$out\n"] >= 0} "count of $te ($n) in: $out"
        incr total $n
    }
    assert {[string first "\[info\] $total keys read" $out] >= 0} "total $total in: $out"
}

test "Compressed snapshots check OK too" {
    foreach mode {zstd lz4} {
        r $c CONFIG SET snapshot-compression $mode
        r $c SAVE
        lassign [check_rdb $dump] code out
        assert_equal 0 $code $out
        assert_match "*inside a $mode frame*" $out
        assert_match "*RDB looks OK!*" $out
    }
    r $c CONFIG SET snapshot-compression none
    r $c SAVE
}

test "A snapshot from redis-server checks OK" {
    if {$::cairn(reference) eq ""} { skip_test "no reference server" }
    set rsrv [start_server -binary $::cairn(reference)]
    set rc [client $rsrv]
    rdbdata_populate $rc
    r $rc FUNCTION LOAD "#!lua name=l1\nredis.register_function('f1', function() return 1 end)"
    r $rc FUNCTION LOAD "#!lua name=l2\nredis.register_function('f2', function() return 2 end)"
    r $rc SAVE
    lassign [check_rdb [file join [dict get $rsrv dir] dump.rdb]] code out
    assert_equal 0 $code $out
    assert_match "*AUX FIELD redis-ver = '7.0.15'*" $out
    assert_match "*RDB looks OK!*" $out
    assert_match "*2 functions libraries*" $out
    kill_server $rsrv
}

test "A missing file is an error" {
    lassign [check_rdb [file join $::cairn(tmp) no-such.rdb]] code out
    assert_equal 1 $code
    assert_match "*RDB ERROR DETECTED*does not exist*" $out
}

test "Truncations and flips report the first error with its offset" {
    set good [read_bytes $dump]
    set n [string length $good]
    set bad [file join $::cairn(tmp) bad.rdb]
    foreach cut [list 4 9 50 [expr {$n / 2}] [expr {$n - 1}]] {
        write_bytes $bad [string range $good 0 [expr {$cut - 1}]]
        lassign [check_rdb $bad] code out
        assert_equal 1 $code "cut at $cut: $out"
        assert_match "*RDB ERROR DETECTED*at offset*" $out
    }
    expr {srand(99)}
    for {set i 0} {$i < 20} {incr i} {
        set pos [expr {10 + int(rand() * ($n - 10))}]
        write_bytes $bad [string replace $good $pos $pos [format %c [expr {[scan [string index $good $pos] %c] ^ 0x3c}]]]
        lassign [check_rdb $bad] code out
        assert_equal 1 $code "flip at $pos: $out"
        assert_match "*at offset*" $out
    }
}

finish
