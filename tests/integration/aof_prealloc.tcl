# aof_prealloc.tcl -- the pad of appendfsync always (persistence/aof_prealloc.c):
# under a steady stream of fsyncs the incremental file is written 1 MB
# ahead with '#' pad lines and overwritten; the pad is cut at shutdown, at
# a switch of policy and at start-up after a crash; a crash's padded
# directory loads in redis-server and passes redis-check-aof; a write torn
# by a power loss inside the pad is cut at start-up while damage further
# back still stops it; a quiet server, aof-preallocate no and everysec
# never pad; a disk without room for the pad takes the writes without it.
source [file join [file dirname [info script]] .. helpers harness.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }
set is_cairn [string match *cairn* [file tail $::cairn(server)]]
if {!$is_cairn} {
    skip "the AOF pad" "cairn's own file layout"
    finish
}

proc aofdir {srv} { return [file join [dict get $srv dir] appendonlydir] }
proc incr_path {srv} { return [file join [aofdir $srv] appendonly.aof.1.incr.aof] }
proc base_size {srv} { return [file size [file join [aofdir $srv] appendonly.aof.1.base.rdb]] }
# The bytes of data in the incremental file (aof_current_size counts the
# base and never the pad).
proc logical {srv c} { return [expr {[info_field $c aof_current_size] - [base_size $srv]}] }
set padline "[string repeat # 63]\n"

# n INCRs of `counter`, one at a time: each is its own fsync, far more than
# 64 a second, so the writer pads.
proc incrs {c n} {
    for {set i 0} {$i < $n} {incr i} { r $c INCR counter }
}
proc padded_server {args} {
    set srv [start_server -config [list appendonly yes appendfsync always {*}$args]]
    set c [client $srv]
    incrs $c 400
    wait_for {[file size [incr_path $srv]] > 1000000} 5000 "the file was not padded"
    return [list $srv $c]
}

test "appendfsync always under load: the file is written ahead with pad lines, cut at shutdown" {
    lassign [padded_server] srv c
    set data [logical $srv $c]
    set bytes [read_bytes [incr_path $srv]]
    assert_equal "\r\n#" [string range $bytes [expr {$data - 2}] $data]
    assert_equal $::padline [string range $bytes end-63 end]
    assert {$data < 100000} "aof_current_size counts the pad: $data"
    assert_equal 0 [expr {[string length $bytes] % 64}]
    stop_server $srv
    set bytes [read_bytes [incr_path $srv]]
    assert_equal $data [string length $bytes]
    assert_equal "\r\n" [string range $bytes end-1 end]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 400 [r $c GET counter]
    kill_server $srv
}

test "SIGKILL with a pad: start-up cuts it, nothing lost; redis-server and redis-check-aof take the directory" {
    lassign [padded_server] srv c
    set data [logical $srv $c]
    kill_server $srv
    assert {[file size [incr_path $srv]] > $data}
    if {[file executable /usr/bin/redis-check-aof]} {
        set m [file join [aofdir $srv] appendonly.aof.manifest]
        assert_match "*All AOF files and manifest are valid*" [exec /usr/bin/redis-check-aof $m]
    }
    set tool [file join [file dirname [info script]] .. .. utils cairn-check-aof]
    set ::env(CAIRN_SERVER) $::cairn(server)
    assert_match "*All AOF files and the manifest are valid*" \
        [exec $tool [file join [aofdir $srv] appendonly.aof.manifest]]
    unset ::env(CAIRN_SERVER)
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 400 [r $c GET counter]
    assert_match "*cut * bytes of preallocated pad at offset $data*" [log_tail $srv 40]
    assert_equal $data [file size [incr_path $srv]]
    assert_equal $data [logical $srv $c]
    # and writing goes on from the data
    r $c INCR counter
    set srv [restart_server $srv]
    assert_equal 401 [r [client $srv] GET counter]
    kill_server $srv
}

test "redis-server loads a padded directory and appends after the pad; this server then loads it all" {
    if {$::ref eq ""} { skip_test "no reference server" }
    lassign [padded_server] srv c
    kill_server $srv
    # redis-server skips the pad lines as annotations and writes after them
    dict set srv binary $::ref
    set rs [restart_server $srv]
    set rc [client $rs]
    assert_equal 400 [r $rc GET counter]
    r $rc CONFIG SET appendfsync always
    r $rc SET byredis 1
    kill_server $rs
    dict set srv binary $::cairn(server)
    # here: the pad stays in the middle; new writes pad again at the end
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {400 1} [r $c MGET counter byredis]
    incrs $c 400
    wait_for {[string range [read_bytes [incr_path $srv]] end-63 end] eq $::padline} 5000 "no new pad"
    kill_server $srv
    set srv [restart_server $srv]
    assert_equal {800 1} [r [client $srv] MGET counter byredis]
    kill_server $srv
}

# Overwrite the file's bytes at offset `at` with `data`, as a disk would.
proc overwrite_at {path at data} {
    set bytes [read_bytes $path]
    write_bytes $path [string replace $bytes $at [expr {$at + [string length $data] - 1}] $data]
}

# A padded file left by SIGKILL, its data ending at the returned offset.
proc crashed_padded {args} {
    lassign [padded_server {*}$args] srv c
    set data [logical $srv $c]
    kill_server $srv
    return [list $srv $data]
}

test "A write torn by a power loss inside the pad is cut at start-up, the acknowledged ones kept" {
    set tool [file join [file dirname [info script]] .. .. utils cairn-check-aof]
    # (a) only the first part of the last write reached the disk
    lassign [crashed_padded] srv data
    set path [incr_path $srv]
    overwrite_at $path $data "*3\r\n\$3\r\nSET\r\n\$4\r\ntorn\r\n\$5\r\nab"
    set ::env(CAIRN_SERVER) $::cairn(server)
    assert {[catch {exec $tool $path} out]}
    assert_match "*ok_up_to=$data*" $out
    unset ::env(CAIRN_SERVER)
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {400 {}} [r $c MGET counter torn]
    assert_match "*in the preallocated tail: a write torn by a crash*" [log_tail $srv 40]
    assert_equal $data [file size $path]
    kill_server $srv
    # (b) a later block of it did, an earlier one did not: pad, then a command
    lassign [crashed_padded] srv data
    set path [incr_path $srv]
    overwrite_at $path [expr {($data / 4096 + 1) * 4096}] "*3\r\n\$3\r\nSET\r\n\$4\r\nlate\r\n\$1\r\n1\r\n"
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {400 {}} [r $c MGET counter late]
    assert_match "*a command after the preallocated pad*torn by a crash*" [log_tail $srv 40]
    assert_equal $data [file size $path]
    kill_server $srv
}

test "Damage further back than a torn write can reach still stops start-up" {
    set srv [start_server -config {appendonly yes appendfsync always}]
    set c [client $srv]
    r $c SET big [string repeat v 300000]
    incrs $c 400
    wait_for {[file size [incr_path $srv]] > 1000000} 5000 "the file was not padded"
    kill_server $srv
    set path [incr_path $srv]
    set bytes [read_bytes $path]
    set pos [string first "*3\r\n\$3\r\nSET\r\n\$3\r\nbig" $bytes]
    assert {$pos >= 0}
    write_bytes $path [string replace $bytes $pos $pos "!"]
    assert {[catch {restart_server $srv} err]}
    assert_match "*Bad file format*offset $pos: expected a multibulk header*" $err
}

test "No pad on a quiet server, with aof-preallocate no, or once appendfsync leaves always" {
    # fewer than 64 fsyncs a second
    set srv [start_server -config {appendonly yes appendfsync always}]
    set c [client $srv]
    for {set i 0} {$i < 100} {incr i} {
        r $c INCR counter
        after 20
    }
    assert_equal [logical $srv $c] [file size [incr_path $srv]]
    kill_server $srv
    set srv [start_server -config {appendonly yes appendfsync always aof-preallocate no}]
    set c [client $srv]
    incrs $c 400
    assert_equal [logical $srv $c] [file size [incr_path $srv]]
    kill_server $srv
    # padded, then everysec: the next write cuts the pad
    lassign [padded_server] srv c
    r $c CONFIG SET appendfsync everysec
    r $c INCR counter
    wait_for {[info_field $c aof_buffer_length] == 0}
    assert_equal [logical $srv $c] [file size [incr_path $srv]]
    assert_equal "\r\n" [string range [read_bytes [incr_path $srv]] end-1 end]
    set srv [restart_server $srv]
    assert_equal 401 [r [client $srv] GET counter]
    kill_server $srv
}

test "tmpfs: a disk without room for the pad takes the writes without it" {
    set dir [file join $::cairn(tmp) padfs]
    file mkdir $dir
    if {[catch {exec mount -t tmpfs -o size=2m tmpfs $dir} e]} { skip_test "cannot mount a tmpfs: $e" }
    try {
        set srv [start_server -config [list dir $dir appendonly yes appendfsync always]]
        set c [client $srv -timeout 5000]
        # leave ~600 KB: less than a chunk of pad
        set free [lindex [exec df -B1 --output=avail $dir] end]
        exec dd if=/dev/zero of=[file join $dir filler] bs=4096 count=[expr {($free - 600000) / 4096}] 2>/dev/null
        incrs $c 600
        assert_equal ok [info_field $c aof_last_write_status]
        set ad [file join $dir appendonlydir]
        assert_equal [expr {[info_field $c aof_current_size] - [file size [file join $ad appendonly.aof.1.base.rdb]]}] \
            [file size [file join $ad appendonly.aof.1.incr.aof]]
        kill_server $srv
        set srv [restart_server $srv]
        assert_equal 600 [r [client $srv] GET counter]
        kill_server $srv
    } finally {
        ::cairn_h::kill_all
        catch {exec umount -l $dir}
    }
}

test "BGREWRITEAOF under load: the old file's pad goes, the new file pads and loads" {
    lassign [padded_server] srv c
    r $c BGREWRITEAOF
    incrs $c 400
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] == 1}
    incrs $c 400
    set m [read_bytes [file join [aofdir $srv] appendonly.aof.manifest]]
    regexp {file (appendonly\.aof\.[0-9]+\.incr\.aof) seq [0-9]+ type i} $m -> name
    set path [file join [aofdir $srv] $name]
    assert {[file size $path] > 1000000} "the new file is not padded"
    kill_server $srv
    set srv [restart_server $srv]
    assert_equal 1200 [r [client $srv] GET counter]
    kill_server $srv
}

finish
