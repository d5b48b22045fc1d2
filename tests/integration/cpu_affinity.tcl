# cpu_affinity.tcl -- where cairn's threads and children run.
#
# Under appendfsync always the AOF writer waits in fdatasync for every
# group, so it is moved to the CPUs that take the AOF disk's completion
# interrupts when those are only some of the CPUs (src/devcpu.c). The test
# works the expected set out from sysfs and /proc itself and compares it
# with the writer thread's Cpus_allowed_list; the directives
# server_cpulist, bio_cpulist and bgsave_cpulist pin as in Redis 7.0 (that
# test passes against redis-server too; the other two are cairn's own).
source [file join [file dirname [info script]] .. helpers harness.tcl]

proc cpus_of {status} {
    set fh [open $status]
    set text [read $fh]
    close $fh
    if {![regexp {Cpus_allowed_list:\s*(\S+)} $text -> list]} { error "no Cpus_allowed_list in $status" }
    return $list
}

# Cpus_allowed_list of the server's thread named name ("" when none).
proc thread_cpus {srv name} {
    set pid [dict get $srv pid]
    foreach task [glob -nocomplain /proc/$pid/task/*] {
        if {[catch {set fh [open $task/comm]}]} continue
        set comm [string trim [read $fh]]
        close $fh
        if {$comm eq $name} { return [cpus_of $task/status] }
    }
    return ""
}

proc expand_list {list} {
    set out {}
    foreach part [split $list ,] {
        if {[regexp {^(\d+)-(\d+)$} $part -> lo hi]} {
            for {set c $lo} {$c <= $hi} {incr c} { lappend out $c }
        } elseif {$part ne ""} {
            lappend out $part
        }
    }
    return [lsort -integer -unique $out]
}

proc read_file {path} {
    set fh [open $path]
    set s [read $fh]
    close $fh
    return $s
}

# The CPUs (a sorted list) that take the completion interrupts of the disk
# under dir, or "" when that is all of them or cannot be known.
proc expected_writer_cpus {dir} {
    if {[catch {exec stat -c %Hd:%Ld $dir} dev] || [string match 0:* $dev]} { return "" }
    if {![file exists /sys/dev/block/$dev]} { return "" }
    # (normalize resolves every component but the last one)
    set disk [file dirname [file normalize /sys/dev/block/$dev/x]]
    if {[file exists $disk/partition]} { set disk [file dirname $disk] }
    if {![file exists $disk/device]} { return "" }
    set d [file dirname [file normalize $disk/device/x]]
    set irqs {}
    for {set up 0} {$up < 6 && [string match /sys/devices/* $d]} {incr up} {
        set irqs [lmap f [glob -nocomplain -tails -directory $d/msi_irqs *] {
            if {[string is integer -strict $f]} { set f } else continue
        }]
        if {[llength $irqs]} break
        if {[file exists $d/irq] && [string trim [read_file $d/irq]] > 0} {
            set irqs [list [string trim [read_file $d/irq]]]
            break
        }
        set d [file dirname $d]
    }
    if {![llength $irqs]} { return "" }
    set counts [dict create]
    foreach line [lrange [split [read_file /proc/interrupts] \n] 1 end] {
        if {![regexp {^\s*(\d+):(.*)$} $line -> irq rest]} continue
        if {[lsearch -exact $irqs $irq] < 0} continue
        set sum 0
        foreach f $rest {
            if {![string is wideinteger -strict $f]} break
            incr sum $f
        }
        dict set counts $irq $sum
    }
    set busiest 0
    dict for {irq n} $counts { if {$n > $busiest} { set busiest $n } }
    if {$busiest == 0} { return "" }
    set cpus {}
    dict for {irq n} $counts {
        if {$n * 100 < $busiest} continue
        set f /proc/irq/$irq/effective_affinity_list
        if {![file readable $f] || [string trim [read_file $f]] eq ""} { set f /proc/irq/$irq/smp_affinity_list }
        lappend cpus {*}[expand_list [string trim [read_file $f]]]
    }
    set allowed [expand_list [cpus_of /proc/self/status]]
    set cpus [lmap c [lsort -integer -unique $cpus] {
        if {[lsearch -exact $allowed $c] >= 0} { set c } else continue
    }]
    if {![llength $cpus] || $cpus eq $allowed} { return "" }
    return $cpus
}

test "under appendfsync always the AOF writer runs where the disk's interrupts land; elsewhere it runs anywhere" {
    set srv [start_server -config {appendonly yes appendfsync always loglevel verbose}]
    set c [client $srv]
    set dir [dict get $srv dir]
    set all [expand_list [cpus_of /proc/[dict get $srv pid]/status]]
    set want [expected_writer_cpus $dir]
    if {$want eq ""} { set want $all }
    wait_for {[expand_list [thread_cpus $srv bio_aof_fsync]] eq $want} 5000 "the writer on $want"
    assert_equal $all [expand_list [thread_cpus $srv bio_lazy_free]]
    if {$want ne $all} { assert_match "*AOF writer on CPU [join $want ,], where*" [log_tail $srv 50] }
    r $c SET k v
    r $c CONFIG SET appendfsync everysec
    assert_equal $all [expand_list [thread_cpus $srv bio_aof_fsync]]
    r $c CONFIG SET appendfsync always
    assert_equal $want [expand_list [thread_cpus $srv bio_aof_fsync]]
    r $c CONFIG SET appendonly no
    assert_equal $all [expand_list [thread_cpus $srv bio_aof_fsync]]
    close_client $c
    stop_server $srv
}

test "server_cpulist, bio_cpulist and bgsave_cpulist pin the loop, the background threads and a BGSAVE child" {
    set all [expand_list [cpus_of /proc/self/status]]
    if {[llength $all] < 2} { skip_test "needs two CPUs" }
    set a [lindex $all 0]
    set b [lindex $all end]
    set srv [start_server -config [list appendonly yes appendfsync always \
                                        server_cpulist $a bio_cpulist $b bgsave_cpulist $b \
                                        rdb-key-save-delay 1000]]
    set c [client $srv]
    set pid [dict get $srv pid]
    assert_equal $a [cpus_of /proc/$pid/status]
    # bio_cpulist wins over the writer's own placement
    assert_equal $b [thread_cpus $srv bio_aof_fsync]
    assert_equal $b [thread_cpus $srv bio_lazy_free]
    r $c DEBUG POPULATE 2000
    r $c BGSAVE
    set child ""
    wait_for {[set child [string trim [lindex [split [exec sh -c "pgrep -P $pid || true"] \n] 0]]] ne ""} 5000 "the BGSAVE child"
    assert_equal $b [cpus_of /proc/$child/status]
    r $c CONFIG SET rdb-key-save-delay 0
    catch {exec kill $child}
    close_client $c
    stop_server $srv
}

test "server_cpulist pins the loop only: the AOF writer still goes where the interrupts land" {
    set all [expand_list [cpus_of /proc/self/status]]
    if {[llength $all] < 2} { skip_test "needs two CPUs" }
    set a [lindex $all 0]
    set srv [start_server -config [list appendonly yes appendfsync always server_cpulist $a]]
    set want [expected_writer_cpus [dict get $srv dir]]
    if {$want eq ""} { set want $all }
    assert_equal $a [cpus_of /proc/[dict get $srv pid]/status]
    wait_for {[expand_list [thread_cpus $srv bio_aof_fsync]] eq $want} 5000 "the writer on $want"
    assert_equal $all [expand_list [thread_cpus $srv bio_lazy_free]]
    stop_server $srv
}

test "a malformed CPU list is logged and ignored" {
    set srv [start_server -config {server_cpulist 0-x bio_cpulist 3-1}]
    set c [client $srv]
    assert_equal PONG [r $c PING]
    assert_match "*Ignoring server_cpulist '0-x'*" [log_tail $srv 50]
    assert_match "*Ignoring bio_cpulist '3-1'*" [log_tail $srv 50]
    close_client $c
    stop_server $srv
}

finish
