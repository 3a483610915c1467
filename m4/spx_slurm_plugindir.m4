# spx_slurm_plugindir.m4 - where `make install` puts the Slurm plugins
# (mpi_spmix.so, spank_spmix.so): configure's --with-slurm-plugindir.
#
# SPX_SLURM_PLUGINDIR(SLURM_PREFIX) sets SLURM_PLUGINDIR and spx_slurm_found_plugindir.
#   --with-slurm-plugindir=DIR  that directory;
#   --with-slurm-plugindir=yes  the installed Slurm's plugin directory (an error
#                               when it cannot be found);
#   (not given)                 the installed Slurm's plugin directory when the
#                               install prefix is Slurm's own (--prefix=/usr, as
#                               RPM and Debian packages are built), else
#                               LIBDIR/slurm, so that a --prefix install stays
#                               under its prefix (make distcheck, test trees).
# Slurm's plugin directory: for the Slurm in /usr, pkg-config's plugindir of
# slurm if it has one, else the directory of libslurm.so (pkg-config's libdir
# of slurm, the compiler's search path); for --with-slurm=DIR, DIR/lib64,
# DIR/lib, DIR/lib/*-linux-gnu; each followed by slurm-wlm (Debian) or slurm
# (Slurm's own RPMs, source installs), the first that holds plugins (*.so).
AC_DEFUN([SPX_SLURM_PLUGINDIR], [
AC_ARG_WITH([slurm-plugindir],
  [AS_HELP_STRING([--with-slurm-plugindir@<:@=DIR@:>@],
     [where to install mpi_spmix.so and spank_spmix.so; =yes: the installed Slurm's
      plugin directory (default: that directory when --prefix is Slurm's prefix,
      else LIBDIR/slurm)])],
  [], [with_slurm_plugindir=default])
spx_slurm_found_plugindir=
AC_MSG_CHECKING([for the installed Slurm's plugin directory])
spx_d=
spx_libdirs=
AS_IF([test "x$1" = x/usr], [
  spx_d=`$PKG_CONFIG --variable=plugindir slurm 2>/dev/null`
  spx_libdirs=`$PKG_CONFIG --variable=libdir slurm 2>/dev/null`
  spx_f=`$CC -print-file-name=libslurm.so 2>/dev/null`
  AS_IF([test -n "$spx_f" && test -f "$spx_f"],
    [spx_libdirs="$spx_libdirs `dirname "$spx_f"`"])])
AS_IF([test -n "$spx_d" && test -d "$spx_d"], [spx_slurm_found_plugindir=$spx_d], [
  spx_libdirs="$spx_libdirs $1/lib64 $1/lib `ls -d $1/lib/*-linux-gnu 2>/dev/null`"
  for spx_l in $spx_libdirs; do
    for spx_d in "$spx_l/slurm-wlm" "$spx_l/slurm"; do
      AS_IF([test -z "$spx_slurm_found_plugindir" && ls "$spx_d"/*.so >/dev/null 2>&1],
        [spx_slurm_found_plugindir=`cd "$spx_d" && pwd -P`])
    done
  done])
AS_IF([test -n "$spx_slurm_found_plugindir"],
  [AC_MSG_RESULT([$spx_slurm_found_plugindir])], [AC_MSG_RESULT([not found])])
spx_p=$prefix
AS_IF([test "x$spx_p" = xNONE], [spx_p=$ac_default_prefix])
AS_CASE([$with_slurm_plugindir],
  [yes], [AS_IF([test -z "$spx_slurm_found_plugindir"],
            [AC_MSG_ERROR([--with-slurm-plugindir: the installed Slurm's plugin directory was
  not found (no plugins in slurm-wlm/ or slurm/ next to libslurm.so); give the directory])])
          SLURM_PLUGINDIR=$spx_slurm_found_plugindir],
  [no], [AC_MSG_ERROR([--without-slurm-plugindir: use --without-slurm to build no plugin])],
  [default], [AS_IF([test -n "$spx_slurm_found_plugindir" && test "x$spx_p" = "x$1"],
                [SLURM_PLUGINDIR=$spx_slurm_found_plugindir],
                [SLURM_PLUGINDIR='${libdir}/slurm'])],
  [SLURM_PLUGINDIR=$with_slurm_plugindir])
AC_SUBST([SLURM_PLUGINDIR])
])
