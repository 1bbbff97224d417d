# Override tickets as in the override scenario (its jobs and holders), each
# job of a holder getting all of them (share_override_tickets FALSE), under
# the hierarchy FO with functional tickets beside them.
. "$(dirname "${BASH_SOURCE[0]}")/override.sh"
override_shared=FALSE override_hierarchy=FO
