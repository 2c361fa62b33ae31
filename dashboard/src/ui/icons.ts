/**
 * The dashboard's icons (lucide-react, decision DB55): one name per meaning, so "delete" is the
 * same picture on every screen. Imported one by one (the package has no side effects), so the
 * bundle carries only these. Beside a word an icon is decorative (`aria-hidden`, lucide's
 * default); a button with only an icon takes its name from `aria-label`.
 */
export type { LucideIcon as IconType } from 'lucide-react';
export {
  Plus as AddIcon,
  Pencil as EditIcon,
  Trash2 as DeleteIcon,
  Download as ExportIcon,
  Upload as ImportIcon,
  RefreshCw as RefreshIcon,
  Search as SearchIcon,
  Settings as SettingsIcon,
  LogOut as SignOutIcon,
  Bell as BellIcon,
  Inbox as EmptyIcon,
  Menu as MenuIcon,
  X as CloseIcon,
  House as HomeIcon,
  Database as ConnectionsIcon,
  Users as UsersIcon,
  ShieldCheck as RolesIcon,
  KeyRound as ApiKeysIcon,
  History as AuditIcon,
  Globe as PublicApiIcon,
  Puzzle as AddOnsIcon,
  ChartColumn as ReportsIcon,
  LayoutDashboard as PagesIcon,
  ListChecks as JobsIcon,
  UserRound as ProfileIcon,
  Lock as SecurityIcon,
  MonitorSmartphone as SessionsIcon,
  SlidersHorizontal as PreferencesIcon,
  Mail as NotificationsIcon,
  ChevronDown as ChevronDownIcon,
  TriangleAlert as WarningIcon,
  CircleCheck as SuccessIcon,
  Info as InfoIcon,
  Layers as BrandIcon,
  Copy as CopyIcon,
  Check as CheckIcon,
  Clock as RecentIcon,
  Table2 as TableIcon,
} from 'lucide-react';
