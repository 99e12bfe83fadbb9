// Opens libarchive on first use (see CArchive.h) and forwards each docpkg_archive_* call to it.
#include "CArchive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#if defined(__APPLE__)
#define DOCPKG_LIBARCHIVE_NAME "libarchive.13.dylib"
#else
#define DOCPKG_LIBARCHIVE_NAME "libarchive.so.13"
#endif

// libarchive's functions, found by name. Written once, under `loadOnce`, and only read after it.
static struct {
#define DOCPKG_POINTER_FUNCTION(type, name, parameters, arguments) type(*name) parameters;
#define DOCPKG_POINTER_PROCEDURE(name, parameters, arguments) void(*name) parameters;
  DOCPKG_LIBARCHIVE_FUNCTIONS(DOCPKG_POINTER_FUNCTION, DOCPKG_POINTER_PROCEDURE)
#undef DOCPKG_POINTER_FUNCTION
#undef DOCPKG_POINTER_PROCEDURE
} libarchive;

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static char loadFailure[512];

// Finds one function; on failure, says which, and leaves the rest unresolved.
static int resolve(void *library, void **pointer, const char *name) {
  *pointer = dlsym(library, name);
  if (*pointer != NULL) return 1;
  snprintf(loadFailure, sizeof loadFailure, "%s has no function %s", DOCPKG_LIBARCHIVE_NAME, name);
  return 0;
}

static void load(void) {
  // RTLD_LOCAL: libarchive's symbols do not join the process's global scope, so the app's own
  // lookups (and any other copy of libarchive it loads) are unchanged.
  void *library = dlopen(DOCPKG_LIBARCHIVE_NAME, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(loadFailure, sizeof loadFailure, "%s", reason != NULL ? reason : "cannot load " DOCPKG_LIBARCHIVE_NAME);
    return;
  }
#define DOCPKG_RESOLVE_FUNCTION(type, name, parameters, arguments) \
  if (!resolve(library, (void **)&libarchive.name, #name)) return;
#define DOCPKG_RESOLVE_PROCEDURE(name, parameters, arguments) \
  if (!resolve(library, (void **)&libarchive.name, #name)) return;
  DOCPKG_LIBARCHIVE_FUNCTIONS(DOCPKG_RESOLVE_FUNCTION, DOCPKG_RESOLVE_PROCEDURE)
#undef DOCPKG_RESOLVE_FUNCTION
#undef DOCPKG_RESOLVE_PROCEDURE
}

const char *docpkg_libarchive_load(void) {
  pthread_once(&loadOnce, load);
  return loadFailure[0] != '\0' ? loadFailure : NULL;
}

#define DOCPKG_FORWARD_FUNCTION(type, name, parameters, arguments) \
  type docpkg_##name parameters { return libarchive.name arguments; }
#define DOCPKG_FORWARD_PROCEDURE(name, parameters, arguments) \
  void docpkg_##name parameters { libarchive.name arguments; }
DOCPKG_LIBARCHIVE_FUNCTIONS(DOCPKG_FORWARD_FUNCTION, DOCPKG_FORWARD_PROCEDURE)
#undef DOCPKG_FORWARD_FUNCTION
#undef DOCPKG_FORWARD_PROCEDURE
