//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_lastz.c
//
//----------
//
// lzw_lastz--
//	warpalign's glue for lastz.c, included at its end.
//
//----------

#ifdef lzwRouting
//----------
//
// lzw_exit_ready--
//	Before main returns:  waits for any thread inside the GPU driver (see
//	__wrap_exit).
//
//----------

void lzw_exit_ready (void)
	{
	warpalign_shutdown ();
	}

//----------
//
// lzw_version_line--
//	The line --version adds on stderr:  the linked warpalign's version
//	(stdout stays upstream's:  pipelines record it).
//
//----------

void lzw_version_line (FILE* f)
	{
	fprintf (f, "[M::warpalign] version %s\n", warpalign_version ());
	}

//----------
//
// __wrap_exit--
//	Every exit() of lastz (linked with -Wl,--wrap=exit) waits first for any
//	thread inside the GPU driver: the driver's own exit handlers, registered
//	as the GPU starts, run before any of LASTZ's.
//
//----------

void __real_exit (int status) __attribute__((noreturn));
void __wrap_exit (int status) __attribute__((noreturn));
void __wrap_exit (int status)
	{
	warpalign_shutdown ();
	__real_exit (status);
	}
#endif // lzwRouting
