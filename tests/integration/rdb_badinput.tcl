# rdb_badinput.tcl -- bad snapshots at scale, with a fixed seed: every
# truncation point of a small snapshot holding every type and encoding goes
# through cairn-server --check-rdb (what utils/cairn-check-rdb runs: the
# server's own loader), which must exit 1 naming the byte offset; 20 of
# the cuts are loaded by actually starting
# the server on them, which must exit 1 with the offset in its log, within
# the time limit and without a sanitizer report; and random corruptions (1
# to 3 bytes changed) of a bigger snapshot, with and without a checksum,
# must each end in exit 0 or 1 with a message, never a crash or a hang. The
# quick run takes every 25th cut and 200 corruptions; the full run (tag
# `slow`) every cut and 2000 corruptions.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]

if {![string match *cairn* [file tail $::cairn(server)]]} {
    puts "\[skip\] rdb_badinput: cairn's own checker"
    finish
}

set seed 20261201
# What utils/cairn-check-rdb execs, called directly: thousands of runs, and
# the shell wrapper would add a third to each under the sanitizers.
set checker [list $::cairn(server) --check-rdb]


# The checker on path: {exit-status output}; the status is "timeout" for
# a hang, "signal ..." for a crash, "sanitizer" when a report was printed.
proc check {path} {
    set code 0
    if {[catch {exec timeout 20 {*}$::checker $path 2>@1} out opts]} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "CHILDSTATUS"} {
            set code [lindex $ec 2]
            if {$code == 124} { set code timeout }
        } else {
            set code "signal $ec"
        }
    }
    if {[string match *Sanitizer* $out] || [string match "*runtime error*" $out]} {
        set code sanitizer
    }
    return [list $code $out]
}

set srv [start_server]
set c [client $srv]

# Small: a few keys of each type, big encodings forced by low limits.
r $c CONFIG SET list-max-listpack-size 4
r $c CONFIG SET hash-max-listpack-entries 4
r $c CONFIG SET zset-max-listpack-entries 4
r $c CONFIG SET set-max-intset-entries 4
r $c SET s:int 12345
r $c SET s:str hello
r $c SET s:raw [string repeat abc 40]
r $c SET s:ttl v EX 100000
r $c RPUSH l:small a b 1 2
r $c RPUSH l:nodes a b c d e f g h i j 1 2 3
r $c SADD set:ints 1 2 3
r $c SADD set:big 1 2 3 4 5 6
r $c SADD set:str a b c
r $c ZADD z:small 1 a 2 b 3.5 c
r $c ZADD z:big 1 a 2 b 3 c 4 d 5 e 6 f
r $c HSET h:small f v g w
r $c HSET h:big a 1 b 2 c 3 d 4 e 5 f 6
set noise ""
for {set i 0} {$i < 600} {incr i} { append noise [format %c [expr {($i * 7919 + 13) % 256}]] }
r $c SET s:noise $noise
r $c SET s:lzf [string repeat abcdefgh 100]
for {set i 0} {$i < 30} {incr i} {
    r $c RPUSH l:long item-$i $i
    r $c SADD set:many [expr {$i * 1000003}]
    r $c SADD set:strs member-$i
    r $c ZADD z:many [expr {$i * 1.5}] m-$i
    r $c HSET h:many field-$i value-$i
}
r $c PEXPIRE h:many 100000000
r $c SELECT 3
r $c SET other db3
r $c SELECT 0
r $c SAVE
set dump [file join [dict get $srv dir] dump.rdb]
set small [read_bytes $dump]
set small_len [string length $small]

# Big: every type in every encoding, saved with and without a checksum.
r $c FLUSHALL
foreach {k v} {list-max-listpack-size -2 hash-max-listpack-entries 128 zset-max-listpack-entries 128
               set-max-intset-entries 512} {
    r $c CONFIG SET $k $v
}
rdbdata_populate $c
r $c SAVE
set big [read_bytes $dump]
close_client $c
stop_server $srv
set srv [start_server -config {rdbchecksum no}]
set c [client $srv]
rdbdata_populate $c
r $c SAVE
set big_nock [read_bytes [file join [dict get $srv dir] dump.rdb]]
close_client $c
stop_server $srv

set bad [file join $::cairn(tmp) bad.rdb]

proc cuts_through_checker {step} {
    assert {$::small_len > 1000 && $::small_len < 8000} "small snapshot is $::small_len bytes"
    assert_equal 0 [lindex [check $::dump] 0] "the uncut file checks OK"
    write_bytes $::bad $::small
    lassign [check $::bad] code out
    assert_equal 0 $code $out
    set n 0
    for {set cut 0} {$cut < $::small_len} {incr cut $step} {
        write_bytes $::bad [string range $::small 0 [expr {$cut - 1}]]
        lassign [check $::bad] code out
        if {$code ne "1"} { error "cut at $cut of $::small_len: status $code: $out" }
        if {![string match "*RDB ERROR DETECTED*at offset*" $out]} {
            error "cut at $cut: no offset in: $out"
        }
        incr n
    }
    puts "# $n truncation points of a $::small_len-byte snapshot checked, all refused with the offset"
}

test "Every 25th truncation point is refused by the checker with its offset" {
    cuts_through_checker 25
}

test "Every truncation point is refused by the checker with its offset" -tags {slow} {
    cuts_through_checker 1
}

test "The server refuses 20 truncated snapshots at start-up: exit 1, offset logged, no hang" {
    expr {srand($::seed)}
    set dir [file join $::cairn(tmp) cutsrv]
    file mkdir $dir
    for {set i 0} {$i < 20} {incr i} {
        # Spread over the file, plus a few random ones.
        set cut [expr {$i < 15 ? $i * $::small_len / 15 : int(rand() * $::small_len)}]
        write_bytes [file join $dir dump.rdb] [string range $::small 0 [expr {$cut - 1}]]
        set port [::cairn_h::find_port]
        set code 0
        set t0 [clock milliseconds]
        if {[catch {exec timeout 30 $::cairn(server) --port $port --bind 127.0.0.1 --dir $dir \
                        --logfile "" --save "" 2>@1} out opts]} {
            set ec [dict get $opts -errorcode]
            set code [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : $ec}]
        }
        assert_equal 1 $code "cut at $cut: $out"
        assert {[clock milliseconds] - $t0 < 20000} "cut at $cut: took too long"
        assert_match "*Failed loading RDB file*at offset*" $out "cut at $cut"
        assert_match "*Fatal error loading the DB*" $out "cut at $cut"
        assert {![string match *Sanitizer* $out] && ![string match "*runtime error*" $out]} \
            "cut at $cut: sanitizer: $out"
    }
}

# n corruptions of data, each 1 to 3 bytes replaced by a different value.
proc corruptions {data n label} {
    set len [string length $data]
    set outcomes [dict create 0 0 1 0]
    for {set i 0} {$i < $n} {incr i} {
        set d $data
        set where {}
        for {set j [expr {1 + int(rand() * 3)}]} {$j > 0} {incr j -1} {
            set pos [expr {int(rand() * $len)}]
            set old [scan [string index $d $pos] %c]
            set new [expr {$old ^ (1 + int(rand() * 255))}]
            set d [string replace $d $pos $pos [format %c $new]]
            lappend where $pos
        }
        write_bytes $::bad $d
        lassign [check $::bad] code out
        if {$code ni {0 1}} { error "$label corruption $i at $where: status $code: $out" }
        if {$code == 1 && ![string match "*RDB ERROR DETECTED*\[error\]*" $out]} {
            error "$label corruption $i at $where: exit 1 without a message: $out"
        }
        if {$code == 0 && ![string match "*RDB looks OK*" $out]} {
            error "$label corruption $i at $where: exit 0 without the OK line: $out"
        }
        dict incr outcomes $code
    }
    puts "# $n corruptions of a $len-byte snapshot ($label): [dict get $outcomes 1] refused, [dict get $outcomes 0] loaded"
    return $outcomes
}

foreach {name n tags} {quick 100 {} full 1000 {slow}} {
    test "Random corruptions ($name): the checker exits 0 or 1 with a message, never crashes or hangs" \
        -tags $tags [list apply {{n} {
            expr {srand($::seed + $n)}
            set o [corruptions $::big $n checksummed]
            # With a checksum, nothing corrupt may load.
            assert_equal 0 [dict get $o 0] "corruptions that loaded despite the checksum"
            corruptions $::big_nock $n "no checksum"
        }} $n]
}

finish
